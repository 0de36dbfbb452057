"""Pool children and swapchain images: owned by their parent, never alive after it, never
reported as leaks; handle values reused by the driver stay correct."""

import unittest

from harness import (TempDirTestCase, app_objects, explicit_env, run, scenario, snapshots,
                     validate, xvfb)

OWNED = {"VkDescriptorSet": "VkDescriptorPool", "VkCommandBuffer": "VkCommandPool"}


class OwnershipTest(TempDirTestCase):
    def check_run(self, snaps):
        self.assertTrue(snaps)
        for snap in snaps:
            validate(snap)
            by_id = {o["id"]: o for o in snap["objects"]}
            for o in snap["objects"]:
                if o["type"] in OWNED or o["origin"] == "swapchain_image":
                    parent = by_id.get(o["parent"])
                    self.assertIsNotNone(parent, f"{o['type']} {o['handle']} outlived its owner "
                                                 f"in a {snap['reason']} snapshot")
                    expected = OWNED.get(o["type"], "VkSwapchainKHR")
                    self.assertEqual(parent["type"], expected)
            # Ids are unique even though the driver reuses handle values.
            self.assertEqual(len(by_id), len(snap["objects"]))
        [dev] = [s for s in snaps if s["reason"] == "device_destroy"]
        self.assertEqual(app_objects(dev), [], "clean_app leaks nothing")
        self.assertFalse([o for o in dev["objects"] if o["origin"] == "swapchain_image"])

    def test_headless(self):
        env = explicit_env(self.tmp, self.out)
        env["VKLEAK_SNAPSHOT_EVERY"] = "25"
        env["VKLEAK_FRAME_BOUNDARY"] = "submit"
        run([scenario("clean_app"), "--frames", "120"], env)
        snaps = snapshots(self.out)
        self.assertGreaterEqual(len([s for s in snaps if s["reason"] == "frame"]), 2)
        self.check_run(snaps)
        # Frame snapshots do see pool children alive while their pools are.
        frame = [s for s in snaps if s["reason"] == "frame"][0]
        types = {o["type"] for o in frame["objects"]}
        self.assertIn("VkDescriptorSet", types)
        self.assertIn("VkCommandBuffer", types)

    def test_swapchain_under_xvfb(self):
        with xvfb() as display:
            env = explicit_env(self.tmp, self.out)
            env["DISPLAY"] = display
            env["VKLEAK_SNAPSHOT_EVERY"] = "20"
            run([scenario("clean_app"), "--swapchain", "--frames", "60"], env)
        snaps = snapshots(self.out)
        self.check_run(snaps)
        frame = [s for s in snaps if s["reason"] == "frame"][0]
        images = [o for o in frame["objects"] if o["origin"] == "swapchain_image"]
        self.assertGreaterEqual(len(images), 2)


if __name__ == "__main__":
    unittest.main()
