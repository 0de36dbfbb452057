// Writes large, valid synthetic snapshots (the layer's shape: one object per line) for scale
// tests and for measuring the reader.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace vkleak::test {

struct SyntheticSpec {
  size_t objects = 1000;
  size_t callsites = 100;  // call site 0 is the layer's "none" entry, as the layer writes it
  size_t frames_per_callsite = 12;
  uint32_t named_every = 4;  // every Nth object has a (unique) debug name
};

// What was written, for the test to check the reader against.
struct SyntheticTotals {
  uint64_t objects = 0;
  uint64_t bytes = 0;
  uint64_t named = 0;
  uint64_t buffers = 0;
  uint64_t last_used = 0;  // objects with a last use
  uint64_t edges = 0;
};

SyntheticTotals write_synthetic_snapshot(const std::string& path, const SyntheticSpec& spec);

}  // namespace vkleak::test
