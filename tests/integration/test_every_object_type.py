"""Creates and destroys every object type lavapipe supports; a snapshot after each step (taken
through the in-band debug-label trigger) must show exactly the expected live counts."""

import json
import unittest

from harness import TempDirTestCase, explicit_env, live_counts, run, scenario, snapshots, validate


class EveryObjectTypeTest(TempDirTestCase):
    def test_live_counts_after_each_step(self):
        proc = run([scenario("every_object_type")], explicit_env(self.tmp, self.out))
        plan = json.loads(proc.stdout.strip().splitlines()[-1])
        steps = plan["steps"]
        self.assertGreater(len(steps), 40)
        by_label = {s["label"]: s for s in snapshots(self.out, "trigger")}
        missing = [st["step"] for st in steps if st["step"] not in by_label]
        self.assertEqual(missing, [], "a snapshot per step")
        covered = set()
        previous = None
        for st in steps:
            snap = by_label[st["step"]]
            counts = live_counts(snap)
            if previous is not None:
                types = set(counts) | set(previous)
                delta = {t: counts.get(t, 0) - previous.get(t, 0) for t in types}
                delta = {t: d for t, d in delta.items() if d}
                self.assertEqual(delta, {t: d for t, d in st["deltas"].items() if d},
                                 f"after step {st['step']}")
            covered.update(st["deltas"])
            previous = counts
        validate(by_label[steps[-1]["step"]])
        # The types every Vulkan 1.3 driver has must all have been exercised.
        core = {"VkBuffer", "VkBufferView", "VkImage", "VkImageView", "VkSampler",
                "VkShaderModule", "VkPipelineCache",
                "VkPipelineLayout", "VkDescriptorSetLayout", "VkDescriptorPool",
                "VkDescriptorSet", "VkDescriptorUpdateTemplate", "VkRenderPass", "VkFramebuffer",
                "VkPipeline", "VkCommandPool", "VkCommandBuffer", "VkFence", "VkSemaphore",
                "VkEvent", "VkQueryPool", "VkDeviceMemory", "VkPrivateDataSlot",
                "VkDebugUtilsMessengerEXT"}
        self.assertEqual(core - covered, set())


if __name__ == "__main__":
    unittest.main()
