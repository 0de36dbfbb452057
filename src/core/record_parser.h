// The fast path for the bulk of a snapshot: one element of "objects" (version 2), read straight
// from memory in the form the layer writes it. Anything else (an unknown key, an escape, a wrong
// type, a missing key, a number that is not a plain integer) is declined, and the general parser
// reads that element instead, so declining is always safe.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "core/snapshot.h"

namespace vkleak {

struct RawEdge {
  Edge edge;  // everything but kind, type and name, which still need interning
  std::string_view kind;
  std::string_view type;
  std::string_view name;
  bool has_name = false;
};

struct RawRecord {
  Object object;  // everything but type and name
  std::string_view type;
  std::string_view name;
  bool has_name = false;
  bool has_last_use = false;
  LastUse last_use;
  bool has_memory = false;
  MemoryBinding memory;
  std::vector<RawEdge> edges;
};

// Reads the object record starting at p (its '{') and ending before end. Returns the position
// after its closing '}', or nullptr when it declines. Strings are views into [p, end), valid
// UTF-8 without escapes.
const char* parse_object_record(const char* p, const char* end, RawRecord* out);

}  // namespace vkleak
