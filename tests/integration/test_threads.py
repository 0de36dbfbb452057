"""Threads creating and destroying concurrently on one device: correct counts, and (in the
TSan build) no data race."""

import unittest

from harness import TempDirTestCase, app_objects, explicit_env, run, scenario, snapshots


class ThreadsTest(TempDirTestCase):
    def test_concurrent_churn_leaves_nothing(self):
        env = explicit_env(self.tmp, self.out)
        env["TSAN_OPTIONS"] = "halt_on_error=1:exitcode=66:second_deadlock_stack=1"
        run([scenario("threads_churn"), "--threads", "4", "--iterations", "2000"], env, timeout=600)
        [snap] = snapshots(self.out, "device_destroy")
        self.assertEqual(app_objects(snap), [])
        self.assertFalse(snap["degraded"])


if __name__ == "__main__":
    unittest.main()
