// One leaking line in a loop that the compiler unrolls (built with -O1, the loop unrolled by
// the pragma as -O2/-O3 unroll small loops): each copy of the vkCreateBuffer call has its own
// return address, all of them one source line. vkleak must report one group, one finding, one
// problem (issue 27: identity by the symbolized call site, not by raw addresses). Every buffer
// is leaked (alive at vkDestroyDevice).
#include <string>
#include <vector>

#include "scenario_common.h"

using scenario::Context;

namespace {

std::vector<VkBuffer> g_buffers;

__attribute__((noinline)) void allocate_staging(const Context& ctx) {
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = 4096;
  info.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkBuffer buffers[5];
#pragma GCC unroll 5
  for (int i = 0; i < 5; ++i) {
    VK_CHECK(vkCreateBuffer(ctx.device, &info, nullptr, &buffers[i]));  // the leaking line
  }
  for (VkBuffer b : buffers) {
    ctx.name(VK_OBJECT_TYPE_BUFFER, b, "staging");
    g_buffers.push_back(b);
  }
  asm volatile("" ::: "memory");  // not a tail call: this frame stays on the stack
}

}  // namespace

int main(int argc, char** argv) {
  scenario::Options options("callsite_unrolled",
                            "Leaks 5 buffers created by one line of an unrolled loop. Submits "
                            "nothing: --frames and --swapchain are accepted and ignored.",
                            0);
  options.parse(argc, argv);
  Context ctx({"callsite_unrolled", false});
  allocate_staging(ctx);
  ctx.destroy();  // every buffer is still alive here
  return 0;
}
