// Call sites through one wrapper: every buffer is created in make_buffer(), reached through
// different callers, so the creation call sites differ only beyond the wrapper's frame.
//
//  - "a.<i>" through from_a() and "b.<i>" through from_b(), alternately, from the same place in
//    the loop: make_buffer's frame lies at the same stack address for both (printed on stderr,
//    the test checks it), so the hook's return address and its place on the stack are equal and
//    only the frames above tell the two chains apart;
//  - "nested<d>.<i>" through nested() recursing d = 0, 1, 2 times: the same callers at other
//    stack depths;
//  - "thread.<i>" through from_a() on a second thread.
// Every buffer is leaked (alive at vkDestroyDevice), so each one's call site is in the snapshot.
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "scenario_common.h"

using scenario::Context;

namespace {

std::vector<VkBuffer> g_buffers;
void* g_frame_a = nullptr;
void* g_frame_b = nullptr;

// The wrapper: vkCreateBuffer is called here for every buffer.
__attribute__((noinline)) void make_buffer(const Context& ctx, const std::string& name,
                                           void** frame_out) {
  if (frame_out) *frame_out = __builtin_frame_address(0);
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = 256;
  info.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkBuffer buffer = VK_NULL_HANDLE;
  VK_CHECK(vkCreateBuffer(ctx.device, &info, nullptr, &buffer));
  ctx.name(VK_OBJECT_TYPE_BUFFER, buffer, name);
  g_buffers.push_back(buffer);
  asm volatile("" ::: "memory");  // not a tail call: make_buffer's frame stays on the stack
}

// Same shape, so that make_buffer's frame lies at the same address under both.
__attribute__((noinline)) void from_a(const Context& ctx, const std::string& name) {
  make_buffer(ctx, name, &g_frame_a);
  asm volatile("" ::: "memory");
}
__attribute__((noinline)) void from_b(const Context& ctx, const std::string& name) {
  make_buffer(ctx, name, &g_frame_b);
  asm volatile("" ::: "memory");
}

__attribute__((noinline)) void nested(const Context& ctx, uint32_t depth, const std::string& name) {
  if (depth == 0)
    make_buffer(ctx, name, nullptr);
  else
    nested(ctx, depth - 1, name);
  asm volatile("" ::: "memory");
}

}  // namespace

int main(int argc, char** argv) {
  scenario::Options options(
      "callsite_chains",
      "Creates buffers through one wrapper from different callers (a.<i>, b.<i>), at different "
      "stack depths (nested<d>.<i>) and on a second thread (thread.<i>), and leaks them all. "
      "Submits nothing: --frames and --swapchain are accepted and ignored.",
      0);
  uint32_t count = 20;
  options.add_uint("--count", &count, "buffers per chain (default 20)");
  options.parse(argc, argv);

  Context ctx({"callsite_chains", false});
  for (uint32_t i = 0; i < count; ++i) {
    from_a(ctx, "a." + std::to_string(i));
    from_b(ctx, "b." + std::to_string(i));
    nested(ctx, i % 3, "nested" + std::to_string(i % 3) + "." + std::to_string(i));
  }
  std::fprintf(stderr, "make_buffer frame: a=%p b=%p\n", g_frame_a, g_frame_b);
  std::thread worker([&] {
    for (uint32_t i = 0; i < count; ++i) from_a(ctx, "thread." + std::to_string(i));
  });
  worker.join();
  ctx.destroy();  // every buffer is still alive here
  std::printf("done: %zu buffers leaked\n", g_buffers.size());
  return 0;
}
