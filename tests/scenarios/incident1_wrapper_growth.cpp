// Incident 1: the wrapper died, the GPU buffer did not.
//
// Each frame creates a GpuBuffer wrapper (a 64 KiB VkBuffer "wrapper.vertices" with its own
// VkDeviceMemory "wrapper.vertices.memory") and copies the long-lived "mesh.static" into it. The
// wrapper itself is released correctly once its frame's fence was waited, but its destructor
// forgets the Vulkan objects (the bug): buffers grow by one per frame, only the newest ones are
// used by submissions, and all of them are still alive at vkDestroyDevice.
#include <cstdio>
#include <memory>
#include <vector>

#include "scenario_common.h"

using scenario::Context;

constexpr VkDeviceSize kVertexBytes = 64 * 1024;

// The engine-level buffer object.
class GpuBuffer {
 public:
  GpuBuffer(const Context& ctx, VkDeviceSize size);
  ~GpuBuffer();
  GpuBuffer(const GpuBuffer&) = delete;
  GpuBuffer& operator=(const GpuBuffer&) = delete;

  VkBuffer handle() const { return buffer_; }

 private:
  const Context& ctx_;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
};

// The call site vkleak must name for the growing buffers: vkCreateBuffer and vkAllocateMemory
// are called right here (not through a helper), and the constructor is not inlined and exported.
__attribute__((noinline)) GpuBuffer::GpuBuffer(const Context& ctx, VkDeviceSize size) : ctx_(ctx) {
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = size;
  info.usage = VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VK_CHECK(vkCreateBuffer(ctx_.device, &info, nullptr, &buffer_));
  ctx_.name(VK_OBJECT_TYPE_BUFFER, buffer_, "wrapper.vertices");
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(ctx_.device, buffer_, &req);
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.allocationSize = req.size;
  alloc.memoryTypeIndex = ctx_.find_memory_type(
      req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  VK_CHECK(vkAllocateMemory(ctx_.device, &alloc, nullptr, &memory_));
  ctx_.name(VK_OBJECT_TYPE_DEVICE_MEMORY, memory_, "wrapper.vertices.memory");
  VK_CHECK(vkBindBufferMemory(ctx_.device, buffer_, memory_, 0));
}

GpuBuffer::~GpuBuffer() {
  // BUG (the incident): the wrapper goes away, but vkDestroyBuffer(buffer_) and
  // vkFreeMemory(memory_) are never called.
}

int main(int argc, char** argv) {
  scenario::Options options(
      "incident1_wrapper_growth",
      "Each frame leaks a 64 KiB VkBuffer + VkDeviceMemory (\"wrapper.vertices\") "
      "through a wrapper whose destructor forgets them.");
  options.parse(argc, argv);

  Context ctx({"incident1_wrapper_growth", options.swapchain});
  scenario::FrameLoop loop(ctx, {options.swapchain});

  scenario::Buffer mesh = scenario::create_buffer(
      ctx, kVertexBytes, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
      "mesh.static");
  std::vector<uint8_t> vertices(kVertexBytes, 0x3f);
  scenario::upload(ctx, mesh.memory, 0, vertices.data(), vertices.size());

  // One wrapper per frame slot, replaced once the slot's fence was waited (correct C++ lifetime).
  std::vector<std::unique_ptr<GpuBuffer>> in_flight(loop.frames_in_flight());
  for (uint32_t i = 0; i < options.frames; ++i) {
    VkCommandBuffer cmd = loop.begin_frame();
    auto& wrapper = in_flight[loop.slot()];
    wrapper = std::make_unique<GpuBuffer>(ctx, kVertexBytes);  // the old wrapper dies here
    VkBufferCopy region{0, 0, kVertexBytes};
    vkCmdCopyBuffer(cmd, mesh.buffer, wrapper->handle(), 1, &region);
    loop.end_frame();
  }

  loop.destroy();
  in_flight.clear();
  scenario::destroy_buffer(ctx, mesh);
  ctx.destroy();  // every "wrapper.vertices" buffer and its memory are still alive here
  std::printf("done: %u frames, %u wrapper buffers leaked\n", options.frames, options.frames);
  return 0;
}
