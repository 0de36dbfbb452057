// Call sites through an inlined helper, built with -O2: create_buffer() is inlined into both of
// its callers, a lambda (lambda.<i>) and a function template (tmpl.<i>), so one return address
// holds helper and caller. vkleak must expand it into the inline chain (addr2line -i) and name
// each caller with its line. Every buffer is leaked (alive at vkDestroyDevice).
// --frames N (headless frames, for the HTML explorer's tests): each frame makes one buffer from
// each caller, and every third frame destroys the oldest pair still alive; a labelled snapshot
// ("odd") is taken at frame 31, off the frame interval. --same-name names every buffer
// "staging.<i>", so the two callers' groups differ only by their path.
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
      "a function template (tmpl.<i>). Without --frames, submits nothing (--swapchain is "
      "accepted and ignored); with --frames N, N headless frames make one buffer per caller "
      "each and free some.",
      0);
  uint32_t count = 4;
  bool same_name = false;
  options.add_uint("--count", &count, "buffers per caller (default 4)");
  options.add_flag("--same-name", &same_name, "name every buffer staging.<i>");
  options.parse(argc, argv);

  Context ctx({"callsite_inlined", false});
  auto cache_thumbnail = [&ctx](uint32_t i) __attribute__((noinline)) {
    create_buffer(ctx, "lambda." + std::to_string(i), 256);
    asm volatile("" ::: "memory");
  };
  const auto rename = [&] {
    if (!same_name) return;
    for (size_t k = g_buffers.size() - 2; k < g_buffers.size(); ++k) {
      ctx.name(VK_OBJECT_TYPE_BUFFER, g_buffers[k], "staging." + std::to_string(k));
    }
  };
  if (options.frames == 0) {
    for (uint32_t i = 0; i < count; ++i) {
      cache_thumbnail(i);
      upload_mesh<512>(ctx, i);
      rename();
    }
  } else {
    scenario::FrameLoop loop(ctx, scenario::FrameLoopConfig{});
    size_t freed = 0;  // g_buffers[0, freed) are destroyed
    for (uint32_t f = 0; f < options.frames; ++f) {
      loop.begin_frame();
      cache_thumbnail(f);
      upload_mesh<512>(ctx, f);
      rename();
      if (f % 3 == 2) {
        for (int k = 0; k < 2; ++k) vkDestroyBuffer(ctx.device, g_buffers[freed++], nullptr);
      }
      if (f == 31) ctx.insert_label("vkleak.snapshot:odd");
      loop.end_frame();
    }
    loop.wait_last_submit();
    loop.destroy();
  }
  ctx.destroy();  // every buffer not destroyed above is still alive here
  return 0;
}
