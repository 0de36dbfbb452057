// Debug names, interned process-wide and reference-counted: every holder of a name id (a live
// record, a graveyard record, an edge) owns one reference, and a name nobody holds is freed and
// its id reused, so the table follows the live set, not the run's history (apps that name
// transient objects uniquely). Id 0 means "no name". No process-wide lock (issue 28): engines
// name every object, so references are atomics (retain and release touch only their name's
// entry), and interning or freeing a name locks one of 64 shards, chosen by the name's hash.
// Names are kept as the app's bytes: the JSON writer makes every string valid UTF-8.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace vkleak {

// The id of `name` with one reference owned by the caller (0 for null or empty: no reference).
uint32_t intern_name(const char* name) noexcept;
// Another reference to a live id / gives one back. 0 is ignored (inline: most edges and objects
// have no name, and their stores and destroys call these for every one).
void retain_named(uint32_t id) noexcept;
void release_named(uint32_t id) noexcept;
inline void retain_name(uint32_t id) noexcept {
  if (id != 0) retain_named(id);
}
inline void release_name(uint32_t id) noexcept {
  if (id != 0) release_named(id);
}

// The name of `id` ("" for 0 or a freed id).
std::string name_string(uint32_t id);
// Copies all names (index i -> name i, "" where free) for a snapshot.
void copy_names(std::vector<std::string>* out);

// While a pin lives, names whose last reference goes are kept with their ids (not reused): a
// snapshot copies records (with name ids) first and the names at write time, later.
class NamePin {
 public:
  NamePin() noexcept;
  ~NamePin();
  NamePin(const NamePin&) = delete;
  NamePin& operator=(const NamePin&) = delete;
};

// For tests and budgets: names with a reference (or kept by a pin), and slots in the table.
size_t live_name_count() noexcept;
size_t name_slot_count() noexcept;

}  // namespace vkleak
