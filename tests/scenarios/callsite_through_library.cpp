// Call sites through a library of the "Vulkan stack": every buffer is created by
// libvkleak_test_engine.so (common/engine_lib.cpp), ENGINE_LEVELS frames deep inside it, called
// from the program's own upload_texture() ("engine.<i>"). With the library marked as a
// Vulkan-stack module its frames do not count toward callstack_depth, so the call site reaches
// upload_texture and main; without, a small depth ends inside the library. Every buffer leaks.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "scenario_common.h"

extern "C" VkBuffer engine_create_buffer(VkDevice device, VkDeviceSize size, unsigned levels);

namespace {

constexpr unsigned kEngineLevels = 12;
std::vector<VkBuffer> g_buffers;

__attribute__((noinline)) void upload_texture(const scenario::Context& ctx,
                                              const std::string& name) {
  VkBuffer buffer = engine_create_buffer(ctx.device, 256, kEngineLevels);
  if (buffer == VK_NULL_HANDLE) {
    std::fprintf(stderr, "engine_create_buffer failed\n");
    std::exit(1);
  }
  ctx.name(VK_OBJECT_TYPE_BUFFER, buffer, name);
  g_buffers.push_back(buffer);
  asm volatile("" ::: "memory");
}

}  // namespace

int main(int argc, char** argv) {
  scenario::Options options(
      "callsite_through_library",
      "Creates buffers (engine.<i>) through a shared library, 12 frames deep inside it, from the "
      "program's upload_texture(), and leaks them. Submits nothing: --frames and --swapchain are "
      "accepted and ignored.",
      0);
  uint32_t count = 10;
  options.add_uint("--count", &count, "buffers (default 10)");
  options.parse(argc, argv);

  scenario::Context ctx({"callsite_through_library", false});
  for (uint32_t i = 0; i < count; ++i) upload_texture(ctx, "engine." + std::to_string(i));
  ctx.destroy();  // every buffer is still alive here
  std::printf("done: %zu buffers leaked\n", g_buffers.size());
  return 0;
}
