// Creates an instance, a device, two named buffers "kept.0" and "kept.1" (with memory
// "kept.<i>.memory"), submits --frames frames (default 1), waits for them, and returns from main
// without destroying anything: no vkDestroyDevice, no vkDestroyInstance. vkleak's exit handler
// must still write a final snapshot.
#include <cstdio>

#include "scenario_common.h"

int main(int argc, char** argv) {
  scenario::Options options("no_teardown",
                            "Returns from main without destroying the device or the instance.", 1);
  options.parse(argc, argv);

  scenario::Context ctx({"no_teardown", options.swapchain});
  scenario::FrameLoop loop(ctx, {options.swapchain});
  scenario::Buffer kept[2] = {
      scenario::create_buffer(ctx, 4096, VK_BUFFER_USAGE_TRANSFER_DST_BIT, "kept.0"),
      scenario::create_buffer(ctx, 4096, VK_BUFFER_USAGE_TRANSFER_DST_BIT, "kept.1")};
  for (uint32_t i = 0; i < options.frames; ++i) {
    VkCommandBuffer cmd = loop.begin_frame();
    for (const scenario::Buffer& b : kept) vkCmdFillBuffer(cmd, b.buffer, 0, VK_WHOLE_SIZE, i);
    loop.end_frame();
  }
  loop.wait_last_submit();  // the GPU is idle; only the teardown is missing
  std::printf("done: %u frames, no teardown\n", options.frames);
  return 0;
}
