// Call sites through an inlined helper, built with -O2: create_buffer() is inlined into both of
// its callers, a lambda (lambda.<i>) and a function template (tmpl.<i>), so one return address
// holds helper and caller. vkleak must expand it into the inline chain (addr2line -i) and name
// each caller with its line. Every buffer is leaked (alive at vkDestroyDevice).
#include <string>
#include <vector>

#include "scenario_common.h"

using scenario::Context;

namespace {

std::vector<VkBuffer> g_buffers;

// The helper a user writes around vkCreateBuffer; -O2 inlines such helpers, this one always.
static inline __attribute__((always_inline)) void create_buffer(const Context& ctx,
                                                                const std::string& name,
                                                                VkDeviceSize size) {
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = size;
  info.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkBuffer buffer = VK_NULL_HANDLE;
  VK_CHECK(vkCreateBuffer(ctx.device, &info, nullptr, &buffer));
  ctx.name(VK_OBJECT_TYPE_BUFFER, buffer, name);
  g_buffers.push_back(buffer);
}

template <VkDeviceSize Size>
__attribute__((noinline)) void upload_mesh(const Context& ctx, uint32_t i) {
  create_buffer(ctx, "tmpl." + std::to_string(i), Size);
  asm volatile("" ::: "memory");  // not a tail call: this frame stays on the stack
}

}  // namespace

int main(int argc, char** argv) {
  scenario::Options options(
      "callsite_inlined",
      "Leaks buffers created by an always-inlined helper, called from a lambda (lambda.<i>) and "
      "a function template (tmpl.<i>). Submits nothing: --frames and --swapchain are accepted "
      "and ignored.",
      0);
  uint32_t count = 4;
  options.add_uint("--count", &count, "buffers per caller (default 4)");
  options.parse(argc, argv);

  Context ctx({"callsite_inlined", false});
  auto cache_thumbnail = [&ctx](uint32_t i) __attribute__((noinline)) {
    create_buffer(ctx, "lambda." + std::to_string(i), 256);
    asm volatile("" ::: "memory");
  };
  for (uint32_t i = 0; i < count; ++i) {
    cache_thumbnail(i);
    upload_mesh<512>(ctx, i);
  }
  ctx.destroy();  // every buffer is still alive here
  return 0;
}
