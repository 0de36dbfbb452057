// Leaks exactly --count buffers named "leak.0".."leak.<N-1>" (4 KiB, no memory), created in
// leak_buffers(). Everything else (a buffer "ok.buffer", an image "ok.image" with its memory
// "ok.image.memory", a sampler "ok.sampler", a command pool "ok.cmdpool" with command buffers
// "ok.cmd", a descriptor pool "ok.descpool" whose sets "ok.set" are freed by destroying the pool)
// is destroyed before vkDestroyDevice and vkDestroyInstance.
#include <cstdio>
#include <string>
#include <vector>

#include "scenario_common.h"

using scenario::Context;

// The call site vkleak must name for the leaked buffers: vkCreateBuffer is called right here (not
// through a helper), and the function is not inlined and exported.
__attribute__((noinline)) std::vector<VkBuffer> leak_buffers(const Context& ctx, uint32_t count) {
  std::vector<VkBuffer> buffers(count);
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = 4096;
  info.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  for (uint32_t i = 0; i < count; ++i) {
    VK_CHECK(vkCreateBuffer(ctx.device, &info, nullptr, &buffers[i]));
    ctx.name(VK_OBJECT_TYPE_BUFFER, buffers[i], "leak." + std::to_string(i));
  }
  return buffers;
}

int main(int argc, char** argv) {
  scenario::Options options(
      "leak_named_buffers",
      "Leaks exactly --count buffers named leak.<i>; destroys everything else. "
      "Submits nothing: --frames and --swapchain are accepted and ignored.",
      0);
  uint32_t count = 5;
  options.add_uint("--count", &count, "number of leaked buffers (default 5)");
  options.parse(argc, argv);

  Context ctx({"leak_named_buffers", false});
  std::vector<VkBuffer> leaked = leak_buffers(ctx, count);

  // Properly managed objects.
  VkBuffer ok_buffer =
      scenario::create_buffer_object(ctx, 4096, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, "ok.buffer");

  VkImageCreateInfo image_info{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
  image_info.imageType = VK_IMAGE_TYPE_2D;
  image_info.format = VK_FORMAT_R8G8B8A8_UNORM;
  image_info.extent = {16, 16, 1};
  image_info.mipLevels = 1;
  image_info.arrayLayers = 1;
  image_info.samples = VK_SAMPLE_COUNT_1_BIT;
  image_info.tiling = VK_IMAGE_TILING_OPTIMAL;
  image_info.usage = VK_IMAGE_USAGE_SAMPLED_BIT;
  VkImage image = VK_NULL_HANDLE;
  VK_CHECK(vkCreateImage(ctx.device, &image_info, nullptr, &image));
  ctx.name(VK_OBJECT_TYPE_IMAGE, image, "ok.image");
  VkMemoryRequirements req;
  vkGetImageMemoryRequirements(ctx.device, image, &req);
  VkDeviceMemory image_memory =
      scenario::allocate_memory(ctx, req.size, req.memoryTypeBits, "ok.image.memory");
  VK_CHECK(vkBindImageMemory(ctx.device, image, image_memory, 0));

  VkSamplerCreateInfo sampler_info{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
  VkSampler sampler = VK_NULL_HANDLE;
  VK_CHECK(vkCreateSampler(ctx.device, &sampler_info, nullptr, &sampler));
  ctx.name(VK_OBJECT_TYPE_SAMPLER, sampler, "ok.sampler");

  VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pool_info.queueFamilyIndex = ctx.queue_family;
  VkCommandPool cmd_pool = VK_NULL_HANDLE;
  VK_CHECK(vkCreateCommandPool(ctx.device, &pool_info, nullptr, &cmd_pool));
  ctx.name(VK_OBJECT_TYPE_COMMAND_POOL, cmd_pool, "ok.cmdpool");
  VkCommandBufferAllocateInfo cmd_alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  cmd_alloc.commandPool = cmd_pool;
  cmd_alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cmd_alloc.commandBufferCount = 3;
  VkCommandBuffer cmds[3];
  VK_CHECK(vkAllocateCommandBuffers(ctx.device, &cmd_alloc, cmds));
  for (VkCommandBuffer cmd : cmds) ctx.name(VK_OBJECT_TYPE_COMMAND_BUFFER, cmd, "ok.cmd");

  VkDescriptorSetLayout set_layout = scenario::create_set_layout(
      ctx, {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER}, VK_SHADER_STAGE_COMPUTE_BIT, "ok.set_layout");
  VkDescriptorPool desc_pool = scenario::create_descriptor_pool(
      ctx, 4, {{VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 4}}, 0, "ok.descpool");
  for (int i = 0; i < 4; ++i) scenario::allocate_set(ctx, desc_pool, set_layout, "ok.set");

  // Teardown of everything but the leaked buffers.
  vkDestroyDescriptorPool(ctx.device, desc_pool, nullptr);  // frees the 4 "ok.set"
  vkDestroyDescriptorSetLayout(ctx.device, set_layout, nullptr);
  vkDestroyCommandPool(ctx.device, cmd_pool, nullptr);  // frees the 3 "ok.cmd"
  vkDestroySampler(ctx.device, sampler, nullptr);
  vkDestroyImage(ctx.device, image, nullptr);
  vkFreeMemory(ctx.device, image_memory, nullptr);
  vkDestroyBuffer(ctx.device, ok_buffer, nullptr);
  ctx.destroy();  // the "leak.<i>" buffers are still alive here
  std::printf("done: %zu buffers leaked\n", leaked.size());
  return 0;
}
