// Processes a test framework starts only to die on purpose.
#pragma once

namespace vkleak {

// GoogleTest's death tests in the "threadsafe" style re-run the test binary with
// --gtest_internal_run_death_test=... and expect it to crash or exit: that crash is the test's
// expectation, not the run's, so the layer stays out of such a process (no snapshots, no crash
// snapshot). "fast" style death tests fork without exec: a forked child is never the run anyway.
// Reads /proc/self/cmdline; false when it cannot be read.
bool is_death_test_child() noexcept;

}  // namespace vkleak
