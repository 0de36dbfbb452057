// A shared library between a program and Vulkan, like a rendering engine or a translation layer
// (GL on zink): its Vulkan calls come from several frames deep inside it. The callsite tests mark
// it as a Vulkan-stack module (layer setting vulkan_stack_modules, vkleak --stack-module) and
// expect call sites to reach the program's own frames above it.
#include <vulkan/vulkan.h>

extern "C" {

// `levels` frames of the library's own before vkCreateBuffer.
__attribute__((visibility("default"), noinline)) VkBuffer engine_create_buffer(VkDevice device,
                                                                               VkDeviceSize size,
                                                                               unsigned levels) {
  VkBuffer buffer = VK_NULL_HANDLE;
  if (levels > 0) {
    buffer = engine_create_buffer(device, size, levels - 1);
  } else {
    VkBufferCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    info.size = size;
    info.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    if (vkCreateBuffer(device, &info, nullptr, &buffer) != VK_SUCCESS) buffer = VK_NULL_HANDLE;
  }
  asm volatile("" ::: "memory");  // not a tail call: each level keeps its frame
  return buffer;
}

}  // extern "C"
