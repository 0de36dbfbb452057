// Edges name their target as it was when the edge was made, also when the layer resolves
// targets from a per-thread cache: views made on an image before and after it is renamed, on
// two images in turn, and on an image created after another one was destroyed (lavapipe often
// hands out the destroyed image's handle again; the scenario prints whether it did).
//
// Alive at vkDestroyDevice (leaked on purpose, so that the snapshot shows their edges): images
// "img.first" (renamed "img.renamed") and "img.third", views "v1".."v5". "img.other" is
// destroyed before "img.third" is created; its view "v3" stays.
//
// Descriptor sets keep their layout in their own record: "set.a" is allocated with layout
// "layout.gone", which is destroyed before "layout.new" is created (often at the same handle)
// and "set.b" allocated with it. Alive at vkDestroyDevice: "pool.sets", "set.a", "set.b",
// "layout.new".
//
// Memory bindings are kept in the bound resource's record: "buf.sub0" and "buf.sub1" are bound
// to "mem.shared" at offsets 0 and one 4 KiB step further; "buf.stale" is bound to "mem.freed",
// which is then freed (legal: the buffer only must not be used); "buf.after" is bound to
// "mem.after", allocated after that free (often at the same handle). All four buffers,
// "mem.shared" and "mem.after" are alive at vkDestroyDevice.
#include <cstdio>

#include "scenario_common.h"

using scenario::Context;

namespace {

VkImage make_image(const Context& ctx, const char* name) {
  VkImageCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
  info.imageType = VK_IMAGE_TYPE_2D;
  info.format = VK_FORMAT_R8G8B8A8_UNORM;
  info.extent = {4, 4, 1};
  info.mipLevels = 1;
  info.arrayLayers = 1;
  info.samples = VK_SAMPLE_COUNT_1_BIT;
  info.tiling = VK_IMAGE_TILING_OPTIMAL;
  info.usage = VK_IMAGE_USAGE_SAMPLED_BIT;
  VkImage image = VK_NULL_HANDLE;
  VK_CHECK(vkCreateImage(ctx.device, &info, nullptr, &image));
  ctx.name(VK_OBJECT_TYPE_IMAGE, image, name);
  return image;
}

VkImageView make_view(const Context& ctx, VkImage image, const char* name) {
  VkImageViewCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
  info.image = image;
  info.viewType = VK_IMAGE_VIEW_TYPE_2D;
  info.format = VK_FORMAT_R8G8B8A8_UNORM;
  info.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  VkImageView view = VK_NULL_HANDLE;
  VK_CHECK(vkCreateImageView(ctx.device, &info, nullptr, &view));
  ctx.name(VK_OBJECT_TYPE_IMAGE_VIEW, view, name);
  return view;
}

}  // namespace

int main(int argc, char** argv) {
  scenario::Options options("edge_targets",
                            "Views on renamed, alternating and re-created images; leaks them "
                            "all. Submits nothing: --frames and --swapchain are ignored.",
                            0);
  options.parse(argc, argv);
  Context ctx({"edge_targets", false});
  if (!ctx.debug_utils) scenario::fail("VK_EXT_debug_utils is needed to name the images");

  VkImage first = make_image(ctx, "img.first");
  make_view(ctx, first, "v1");
  ctx.name(VK_OBJECT_TYPE_IMAGE, first, "img.renamed");
  make_view(ctx, first, "v2");
  VkImage other = make_image(ctx, "img.other");
  make_view(ctx, other, "v3");
  // Nothing is referenced between v3 and v5: a cached target for img.other's handle would
  // still be there for v5 if the destroy did not invalidate it.
  vkDestroyImage(ctx.device, other, nullptr);
  VkImage third = make_image(ctx, "img.third");
  std::fprintf(stderr, "img.third %s img.other's handle\n",
               third == other ? "reuses" : "does not reuse");
  make_view(ctx, third, "v5");
  make_view(ctx, first, "v4");

  VkDescriptorPool pool = scenario::create_descriptor_pool(
      ctx, 2, {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2}}, 0, "pool.sets");
  VkDescriptorSetLayout gone = scenario::create_set_layout(
      ctx, {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER}, VK_SHADER_STAGE_COMPUTE_BIT, "layout.gone");
  scenario::allocate_set(ctx, pool, gone, "set.a");
  vkDestroyDescriptorSetLayout(ctx.device, gone, nullptr);  // legal while set.a lives
  VkDescriptorSetLayout fresh = scenario::create_set_layout(
      ctx, {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER}, VK_SHADER_STAGE_COMPUTE_BIT, "layout.new");
  std::fprintf(stderr, "layout.new %s layout.gone's handle\n",
               fresh == gone ? "reuses" : "does not reuse");
  scenario::allocate_set(ctx, pool, fresh, "set.b");

  const VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  auto bind = [&](const char* name, VkDeviceMemory memory, VkDeviceSize offset) {
    VkBuffer b = scenario::create_buffer_object(ctx, 1024, usage, name);
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(ctx.device, b, &req);
    VK_CHECK(vkBindBufferMemory(ctx.device, b, memory, offset));
    return b;
  };
  VkMemoryRequirements req;
  {
    VkBuffer probe = scenario::create_buffer_object(ctx, 1024, usage, "probe");
    vkGetBufferMemoryRequirements(ctx.device, probe, &req);
    vkDestroyBuffer(ctx.device, probe, nullptr);
  }
  const VkDeviceSize step = (4096 + req.alignment - 1) / req.alignment * req.alignment;
  VkDeviceMemory shared =
      scenario::allocate_memory(ctx, 2 * step, req.memoryTypeBits, "mem.shared");
  bind("buf.sub0", shared, 0);
  bind("buf.sub1", shared, step);
  VkDeviceMemory freed = scenario::allocate_memory(ctx, step, req.memoryTypeBits, "mem.freed");
  bind("buf.stale", freed, 0);
  vkFreeMemory(ctx.device, freed, nullptr);
  VkDeviceMemory after = scenario::allocate_memory(ctx, step, req.memoryTypeBits, "mem.after");
  std::fprintf(stderr, "mem.after %s mem.freed's handle\n",
               after == freed ? "reuses" : "does not reuse");
  bind("buf.after", after, 0);
  std::fprintf(stderr, "buf.sub1 offset %llu\n", static_cast<unsigned long long>(step));
  ctx.destroy();  // the images, views, pool, sets and layout.new are still alive here
  std::printf("done\n");
  return 0;
}
