"""A GoogleTest death test's child is not the run (issue 37): a suite whose "threadsafe" death
test re-runs the binary, makes a device, leaks a buffer and aborts on purpose passes under
`vkleak run`, and so does the gate; before, the child's SIGABRT made the gate exit 3 ("the run
crashed")."""

import json
import os
import unittest

from harness import BUILD, VKLEAK, TempDirTestCase, base_env, run, snapshot_files

PROGRAM = os.path.join(BUILD, "tests/api/vkleak_api_death_test")


class DeathTestChildTest(TempDirTestCase):
    def setUp(self):
        super().setUp()
        if not os.path.exists(PROGRAM):
            self.skipTest(f"{PROGRAM} not built (tests/api)")

    def test_the_child_that_dies_on_purpose_is_not_the_run(self):
        out = os.path.join(self.tmp, "snapshots")
        env = base_env(self.tmp)
        proc = run([VKLEAK, "run", "--out", out, "--", PROGRAM], env, check=False)
        # The suite itself passed: the death test saw its child die.
        self.assertEqual(proc.returncode, 0, proc.stdout[-3000:] + proc.stderr[-3000:])
        self.assertIn("[  PASSED  ] 2 tests.", proc.stdout)
        # One run, the parent's: the child wrote nothing, no crash snapshot.
        pids = {os.path.basename(f).split("-")[1] for f in snapshot_files(out)}
        self.assertEqual(len(pids), 1, sorted(snapshot_files(out)))
        report = json.loads(run([VKLEAK, "report", out, "--format", "json"], env,
                                check=False).stdout)
        self.assertEqual(len(report["runs"]), 1)
        self.assertEqual(report["runs"][0]["incomplete"], [])
        names = [e.get("name") for f in report["findings"] for e in f.get("examples") or []]
        self.assertNotIn("death.child.buffer", names)
        gate = run([VKLEAK, "gate", out], env, check=False)
        self.assertEqual(gate.returncode, 0, gate.stdout + gate.stderr)


if __name__ == "__main__":
    unittest.main()
