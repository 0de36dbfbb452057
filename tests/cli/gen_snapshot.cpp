// vkleak_gen_snapshot OUT.json [OBJECTS] [CALLSITES]: writes a valid synthetic snapshot, e.g. to
// measure `vkleak show` on a million objects.
#include <cstdio>
#include <cstdlib>
#include <exception>

#include "snapshot_builder.h"

int main(int argc, char** argv) {
  if (argc < 2 || argc > 4) {
    std::fprintf(stderr, "usage: %s OUT.json [OBJECTS] [CALLSITES]\n", argv[0]);
    return 2;
  }
  vkleak::test::SyntheticSpec spec;
  spec.objects = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1000000;
  spec.callsites = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 5000;
  try {
    const auto totals = vkleak::test::write_synthetic_snapshot(argv[1], spec);
    std::printf("%llu objects, %llu bytes\n", static_cast<unsigned long long>(totals.objects),
                static_cast<unsigned long long>(totals.bytes));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
