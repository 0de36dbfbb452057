// Incident 4: ownership handed over, never handed back.
//
// A compute-only program that never presents (frames end at submits). Each iteration imports a
// "tensor": it allocates a VkDeviceMemory "tensor.memory" (exportable as an opaque fd when
// VK_KHR_external_memory_fd is supported), creates a VkBuffer "tensor.buffer" on it, runs
// c = a + b over 256 floats into it, waits for the fence, checks the result, and destroys the
// buffer, but never frees the memory (the bug). Everything else is destroyed at exit; the orphaned
// memory objects are still alive at vkDestroyDevice.
#include <cstdio>
#include <vector>

#include "add_comp.h"
#include "scenario_common.h"

using scenario::Context;

constexpr uint32_t kElements = 256;
constexpr VkDeviceSize kBytes = kElements * sizeof(float);

struct ExportSupport {
  bool enabled = false;  // allocate tensors with VkExportMemoryAllocateInfo (OPAQUE_FD)
  bool dedicated = false;
};

ExportSupport query_export_support(const Context& ctx) {
  ExportSupport support;
  if (!ctx.has_device_extension(VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME)) return support;
  VkPhysicalDeviceExternalBufferInfo info{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_BUFFER_INFO};
  info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  info.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  VkExternalBufferProperties props{VK_STRUCTURE_TYPE_EXTERNAL_BUFFER_PROPERTIES};
  vkGetPhysicalDeviceExternalBufferProperties(ctx.physical_device, &info, &props);
  const VkExternalMemoryFeatureFlags features =
      props.externalMemoryProperties.externalMemoryFeatures;
  support.enabled = (features & VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT) != 0;
  support.dedicated = (features & VK_EXTERNAL_MEMORY_FEATURE_DEDICATED_ONLY_BIT) != 0;
  return support;
}

struct Tensor {
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkBuffer buffer = VK_NULL_HANDLE;
};

// The hand-over: the call site vkleak must name for the orphaned memory. vkAllocateMemory is
// called right here (not through a helper); not inlined, exported.
__attribute__((noinline)) Tensor import_tensor(const Context& ctx, const ExportSupport& exports) {
  Tensor tensor;
  VkExternalMemoryBufferCreateInfo external_buffer{
      VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
  external_buffer.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  VkBufferCreateInfo buffer_info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  buffer_info.pNext = exports.enabled ? &external_buffer : nullptr;
  buffer_info.size = kBytes;
  buffer_info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  buffer_info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VK_CHECK(vkCreateBuffer(ctx.device, &buffer_info, nullptr, &tensor.buffer));
  ctx.name(VK_OBJECT_TYPE_BUFFER, tensor.buffer, "tensor.buffer");
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(ctx.device, tensor.buffer, &req);

  VkMemoryDedicatedAllocateInfo dedicated{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO};
  dedicated.buffer = tensor.buffer;
  VkExportMemoryAllocateInfo export_info{VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO};
  export_info.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  if (exports.dedicated) export_info.pNext = &dedicated;
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.pNext = exports.enabled ? &export_info : nullptr;
  alloc.allocationSize = req.size;
  alloc.memoryTypeIndex =
      ctx.find_memory_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                                   VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
  VK_CHECK(vkAllocateMemory(ctx.device, &alloc, nullptr, &tensor.memory));
  ctx.name(VK_OBJECT_TYPE_DEVICE_MEMORY, tensor.memory, "tensor.memory");
  VK_CHECK(vkBindBufferMemory(ctx.device, tensor.buffer, tensor.memory, 0));
  return tensor;
}

void release_tensor(const Context& ctx, Tensor& tensor) {
  vkDestroyBuffer(ctx.device, tensor.buffer, nullptr);
  tensor.buffer = VK_NULL_HANDLE;
  // BUG (the incident): the ownership hand-back never happens; missing
  // vkFreeMemory(ctx.device, tensor.memory, nullptr);
}

int main(int argc, char** argv) {
  scenario::Options options(
      "incident4_orphaned_memory",
      "Compute only: each iteration allocates \"tensor.memory\", runs c = a + "
      "b into a buffer on it, destroys the buffer, never frees the memory.");
  options.add_alias("--iterations", "--frames");
  options.parse(argc, argv);
  if (options.swapchain) {
    std::fprintf(stderr, "incident4: compute only, --swapchain ignored (frames end at submits)\n");
  }

  Context ctx({"incident4_orphaned_memory", false, {}, {VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME}});
  scenario::FrameLoop loop(ctx, {false});
  ExportSupport exports = query_export_support(ctx);
  std::fprintf(stderr, "incident4: tensor memory %s\n",
               exports.enabled ? "exportable (OPAQUE_FD)" : "not exportable (plain allocations)");

  VkShaderModule shader = scenario::create_shader_module(ctx, add_comp, "add.shader");
  VkDescriptorSetLayout set_layout = scenario::create_set_layout(
      ctx,
      {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
       VK_DESCRIPTOR_TYPE_STORAGE_BUFFER},
      VK_SHADER_STAGE_COMPUTE_BIT, "add.set_layout");
  VkPipelineLayout pipeline_layout =
      scenario::create_pipeline_layout(ctx, {set_layout}, "add.pipeline_layout");
  VkPipeline pipeline =
      scenario::create_compute_pipeline(ctx, pipeline_layout, shader, "add.pipeline");
  VkDescriptorPool pool = scenario::create_descriptor_pool(
      ctx, 1, {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 3}}, 0, "add.descriptor_pool");
  VkDescriptorSet set = scenario::allocate_set(ctx, pool, set_layout, "add.set");

  scenario::Buffer a =
      scenario::create_buffer(ctx, kBytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, "tensor.a");
  scenario::Buffer b =
      scenario::create_buffer(ctx, kBytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, "tensor.b");
  std::vector<float> values_a(kElements), values_b(kElements);
  for (uint32_t i = 0; i < kElements; ++i) {
    values_a[i] = static_cast<float>(i);
    values_b[i] = 1000.0f;
  }
  scenario::upload(ctx, a.memory, 0, values_a.data(), kBytes);
  scenario::upload(ctx, b.memory, 0, values_b.data(), kBytes);
  scenario::write_buffer_descriptor(ctx, set, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, a.buffer);
  scenario::write_buffer_descriptor(ctx, set, 1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, b.buffer);

  for (uint32_t i = 0; i < options.frames; ++i) {
    Tensor c = import_tensor(ctx, exports);
    // The set was last used by the previous iteration, which was waited for.
    scenario::write_buffer_descriptor(ctx, set, 2, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, c.buffer);
    VkCommandBuffer cmd = loop.begin_frame();
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_layout, 0, 1, &set, 0,
                            nullptr);
    vkCmdDispatch(cmd, kElements / 64, 1, 1);
    loop.end_frame();
    loop.wait_last_submit();
    float last = 0.0f;
    scenario::download(ctx, c.memory, (kElements - 1) * sizeof(float), &last, sizeof(last));
    if (last != 1255.0f) scenario::fail("wrong result from the add kernel");
    release_tensor(ctx, c);
  }

  loop.destroy();
  scenario::destroy_buffer(ctx, a);
  scenario::destroy_buffer(ctx, b);
  vkDestroyDescriptorPool(ctx.device, pool, nullptr);
  vkDestroyPipeline(ctx.device, pipeline, nullptr);
  vkDestroyPipelineLayout(ctx.device, pipeline_layout, nullptr);
  vkDestroyDescriptorSetLayout(ctx.device, set_layout, nullptr);
  vkDestroyShaderModule(ctx.device, shader, nullptr);
  ctx.destroy();  // every "tensor.memory" is still alive here, with nothing bound to it
  std::printf("done: %u iterations, %u tensor memories orphaned\n", options.frames, options.frames);
  return 0;
}
