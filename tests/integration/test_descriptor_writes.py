"""Descriptor writes logged per thread and resolved later (layer/src/graph/descriptor_log.h): the
snapshot shows what storing every write at once showed — handle reuse after a destroy, a rename
after the write, a set freed with its write pending, slots written again, calls of one shape
replaced in the log, two threads writing one set in turn, and writers racing a thread whose
destroys drain their logs (scenario descriptor_writes)."""

import unittest

from harness import TempDirTestCase, explicit_env, run, scenario, snapshots, validate


class DescriptorWritesTest(TempDirTestCase):
    def snapshot(self, args=()):
        proc = run([scenario("descriptor_writes")] + list(args), explicit_env(self.tmp, self.out))
        [snap] = snapshots(self.out, "device_destroy")
        validate(snap)
        return proc, snap

    @staticmethod
    def descriptors(obj):
        return [e for e in obj.get("edges", []) if e["kind"].startswith("descriptor")]

    def test_writes_resolve_as_if_stored_at_once(self):
        proc, snap = self.snapshot()
        by_name = {o["name"]: o for o in snap["objects"] if o["name"]}
        destroyed = {o["name"]: o for o in snap["destroyed"] if o["name"]}

        with self.subTest("a destroyed view's handle made again"):
            self.assertRegex(proc.stderr, r"view.new (reuses|does not reuse) view.old's handle")
            [edge] = self.descriptors(by_name["set.reuse"])
            old = destroyed["view.old"]
            self.assertEqual((edge["to"], edge["name"], edge["handle"]),
                             (old["id"], "view.old", old["handle"]))
            self.assertNotEqual(edge["to"], by_name["view.new"]["id"])

        with self.subTest("renamed after the write"):
            [edge] = self.descriptors(by_name["set.renamed"])
            self.assertEqual((edge["to"], edge["name"]), (by_name["view.after"]["id"], "view.before"))

        with self.subTest("a set freed with its write pending"):
            self.assertRegex(proc.stderr, r"set.after (reuses|does not reuse) set.freed's handle")
            self.assertNotIn("set.freed", by_name)
            self.assertEqual(self.descriptors(by_name["set.after"]), [])

        with self.subTest("a slot written again keeps its edge's place"):
            edges = self.descriptors(by_name["set.order"])
            self.assertEqual([(e["slot"], e["name"]) for e in edges],
                             [(0, "view.c"), (1, "view.b")])
            # view.a was replaced: nothing points at it.
            self.assertFalse(any(e.get("name") == "view.a"
                                 for o in snap["objects"] for e in o.get("edges", [])))

        with self.subTest("calls of one shape, replaced in place"):
            edges = self.descriptors(by_name["set.frames"])
            self.assertEqual([(e["slot"], e["name"]) for e in edges],
                             [(1, "view.f3.0"), (0, "view.f3.1")])
            [edge] = self.descriptors(by_name["set.between"])
            self.assertEqual(edge["name"], "view.between")

        with self.subTest("two threads writing one set in turn"):
            [edge] = self.descriptors(by_name["set.shared"])
            self.assertEqual((edge["to"], edge["name"]), (by_name["buf.t1"]["id"], "buf.t1"))
            [edge] = self.descriptors(by_name["set.t1"])
            self.assertEqual(edge["name"], "buf.t1.own")

    def test_writers_while_another_thread_destroys(self):
        _, snap = self.snapshot(["--churn", "3000"])
        by_name = {o["name"]: o for o in snap["objects"] if o["name"]}
        for t in (0, 1):
            for set_name in (f"set.w{t}", f"set.w{t}.b"):
                with self.subTest(set=set_name):
                    [edge] = self.descriptors(by_name[set_name])
                    self.assertEqual((edge["to"], edge["name"]),
                                     (by_name[f"buf.w{t}.last"]["id"], f"buf.w{t}.last"))
        self.assertFalse(any(o["name"] == "buf.churn" for o in snap["objects"]))
        self.assertFalse(snap.get("degraded", False))


if __name__ == "__main__":
    unittest.main()
