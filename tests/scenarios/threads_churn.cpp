// --threads T threads churn objects concurrently on one device, --iterations N times each (for
// the TSan test): a buffer "churn.buffer" with memory "churn.memory", an image view "churn.view"
// of the shared image "churn.image", a sampler "churn.sampler", and a descriptor set "churn.set"
// from the thread's pool "churn.pool.<t>" (allocated, written with the view, freed). Every 16
// iterations a thread submits a fill of its buffer "churn.target.<t>" (queue access serialized by
// a mutex) and waits for its fence. Everything is destroyed; nothing leaks.
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "scenario_common.h"

using scenario::Context;

constexpr uint32_t kSubmitEvery = 16;

struct Shared {
  const Context* ctx = nullptr;
  VkImage image = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  std::mutex queue_mutex;
};

void churn(Shared& shared, uint32_t thread_index, uint32_t iterations) {
  const Context& ctx = *shared.ctx;
  const std::string suffix = "." + std::to_string(thread_index);
  VkDescriptorPool pool = scenario::create_descriptor_pool(
      ctx, 1, {{VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, 1}},
      VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT, "churn.pool" + suffix);
  VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pool_info.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pool_info.queueFamilyIndex = ctx.queue_family;
  VkCommandPool cmd_pool = VK_NULL_HANDLE;
  VK_CHECK(vkCreateCommandPool(ctx.device, &pool_info, nullptr, &cmd_pool));
  ctx.name(VK_OBJECT_TYPE_COMMAND_POOL, cmd_pool, "churn.cmdpool" + suffix);
  VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  alloc.commandPool = cmd_pool;
  alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  alloc.commandBufferCount = 1;
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  VK_CHECK(vkAllocateCommandBuffers(ctx.device, &alloc, &cmd));
  ctx.name(VK_OBJECT_TYPE_COMMAND_BUFFER, cmd, "churn.cmd" + suffix);
  VkFence fence = scenario::create_fence(ctx, "churn.fence" + suffix);
  scenario::Buffer target =
      scenario::create_buffer(ctx, 4096, VK_BUFFER_USAGE_TRANSFER_DST_BIT, "churn.target" + suffix);

  VkSamplerCreateInfo sampler_info{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
  VkImageViewCreateInfo view_info{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
  view_info.image = shared.image;
  view_info.viewType = VK_IMAGE_VIEW_TYPE_2D;
  view_info.format = VK_FORMAT_R8G8B8A8_UNORM;
  view_info.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};

  for (uint32_t i = 0; i < iterations; ++i) {
    VkBuffer buffer =
        scenario::create_buffer_object(ctx, 1024, VK_BUFFER_USAGE_TRANSFER_DST_BIT, "churn.buffer");
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(ctx.device, buffer, &req);
    VkDeviceMemory memory =
        scenario::allocate_memory(ctx, req.size, req.memoryTypeBits, "churn.memory");
    VK_CHECK(vkBindBufferMemory(ctx.device, buffer, memory, 0));

    VkImageView view = VK_NULL_HANDLE;
    VK_CHECK(vkCreateImageView(ctx.device, &view_info, nullptr, &view));
    ctx.name(VK_OBJECT_TYPE_IMAGE_VIEW, view, "churn.view");
    VkSampler sampler = VK_NULL_HANDLE;
    VK_CHECK(vkCreateSampler(ctx.device, &sampler_info, nullptr, &sampler));
    ctx.name(VK_OBJECT_TYPE_SAMPLER, sampler, "churn.sampler");

    VkDescriptorSet set = scenario::allocate_set(ctx, pool, shared.set_layout, "churn.set");
    VkDescriptorImageInfo image_info{VK_NULL_HANDLE, view,
                                     VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
    VkWriteDescriptorSet write{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    write.dstSet = set;
    write.dstBinding = 0;
    write.descriptorCount = 1;
    write.descriptorType = VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE;
    write.pImageInfo = &image_info;
    vkUpdateDescriptorSets(ctx.device, 1, &write, 0, nullptr);

    if (i % kSubmitEvery == 0) {
      VK_CHECK(vkResetCommandBuffer(cmd, 0));
      VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
      begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
      VK_CHECK(vkBeginCommandBuffer(cmd, &begin));
      vkCmdFillBuffer(cmd, target.buffer, 0, VK_WHOLE_SIZE, i);
      VK_CHECK(vkEndCommandBuffer(cmd));
      VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
      submit.commandBufferCount = 1;
      submit.pCommandBuffers = &cmd;
      {
        std::lock_guard<std::mutex> lock(shared.queue_mutex);
        VK_CHECK(vkQueueSubmit(ctx.queue, 1, &submit, fence));
      }
      VK_CHECK(vkWaitForFences(ctx.device, 1, &fence, VK_TRUE, UINT64_MAX));
      VK_CHECK(vkResetFences(ctx.device, 1, &fence));
    }

    VK_CHECK(vkFreeDescriptorSets(ctx.device, pool, 1, &set));
    vkDestroySampler(ctx.device, sampler, nullptr);
    vkDestroyImageView(ctx.device, view, nullptr);
    vkDestroyBuffer(ctx.device, buffer, nullptr);
    vkFreeMemory(ctx.device, memory, nullptr);
  }

  scenario::destroy_buffer(ctx, target);
  vkDestroyFence(ctx.device, fence, nullptr);
  vkDestroyCommandPool(ctx.device, cmd_pool, nullptr);
  vkDestroyDescriptorPool(ctx.device, pool, nullptr);
}

int main(int argc, char** argv) {
  scenario::Options options(
      "threads_churn",
      "Threads creating and destroying buffers, memory, image views, samplers "
      "and descriptor sets concurrently on one device. --swapchain is "
      "accepted and ignored.",
      1000);
  uint32_t threads = 4;
  options.add_uint("--threads", &threads, "number of threads (default 4)");
  options.add_alias("--iterations", "--frames");
  options.parse(argc, argv);
  if (threads == 0) scenario::fail("--threads must be at least 1");

  Context ctx({"threads_churn", false});
  Shared shared;
  shared.ctx = &ctx;

  VkImageCreateInfo image_info{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
  image_info.imageType = VK_IMAGE_TYPE_2D;
  image_info.format = VK_FORMAT_R8G8B8A8_UNORM;
  image_info.extent = {16, 16, 1};
  image_info.mipLevels = 1;
  image_info.arrayLayers = 1;
  image_info.samples = VK_SAMPLE_COUNT_1_BIT;
  image_info.tiling = VK_IMAGE_TILING_OPTIMAL;
  image_info.usage = VK_IMAGE_USAGE_SAMPLED_BIT;
  VK_CHECK(vkCreateImage(ctx.device, &image_info, nullptr, &shared.image));
  ctx.name(VK_OBJECT_TYPE_IMAGE, shared.image, "churn.image");
  VkMemoryRequirements req;
  vkGetImageMemoryRequirements(ctx.device, shared.image, &req);
  VkDeviceMemory image_memory =
      scenario::allocate_memory(ctx, req.size, req.memoryTypeBits, "churn.image.memory");
  VK_CHECK(vkBindImageMemory(ctx.device, shared.image, image_memory, 0));
  shared.set_layout = scenario::create_set_layout(ctx, {VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE},
                                                  VK_SHADER_STAGE_COMPUTE_BIT, "churn.set_layout");

  std::vector<std::thread> workers;
  for (uint32_t t = 0; t < threads; ++t) {
    workers.emplace_back(churn, std::ref(shared), t, options.frames);
  }
  for (std::thread& worker : workers) worker.join();

  vkDestroyDescriptorSetLayout(ctx.device, shared.set_layout, nullptr);
  vkDestroyImage(ctx.device, shared.image, nullptr);
  vkFreeMemory(ctx.device, image_memory, nullptr);
  ctx.destroy();
  std::printf("done: %u threads x %u iterations\n", threads, options.frames);
  return 0;
}
