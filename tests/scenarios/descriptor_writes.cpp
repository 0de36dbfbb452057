// Descriptor writes are logged per thread and resolved later (layer/src/graph/descriptor_log.h):
// the snapshot must show what storing each write at once showed. Every set and target below is
// alive at vkDestroyDevice unless said otherwise (its snapshot shows the sets' edges).
//
// - "set.reuse" (binding 0: sampled image) is written "view.old", which is then destroyed; a
//   view "view.new" is made (lavapipe often hands out view.old's handle again: printed). The
//   set's edge names view.old (destroyed), never view.new.
// - "set.renamed": "view.before" is written, then renamed "view.after": the edge keeps the
//   name the view had when written.
// - "set.freed" is written "buf.freed.target" and freed before anything reads it; "set.after"
//   is allocated next from the same pool (often at the same handle; printed) and not written:
//   it has no descriptor edge.
// - "set.order" (bindings 0, 1: sampled images): binding 0 gets "view.a", binding 1 "view.b",
//   binding 0 "view.c", each in a call of its own: edges binding 0 -> view.c first (replaced
//   where view.a was), then view.b.
// - "set.frames" (bindings 0, 1) is written by one call of two writes (binding 1, then 0) four
//   times, "view.fN.1" and "view.fN.0" in call N; "set.between" is written "view.between"
//   after the second call: edges binding 1 -> view.f3.0, binding 0 -> view.f3.1, in that order.
// - "set.shared" (binding 0: uniform buffer) is written by two threads in turn, ordered by
//   joins: thread 1 first writes its own "set.t1", then thread 2 writes "buf.t2" into
//   set.shared, then thread 1 writes "buf.t1": the edge names buf.t1 (the later write), although
//   thread 1's log was made first. Both threads have exited when the device is destroyed.
// - --churn N: two threads write N times into each of their own two sets ("set.wT",
//   "set.wT.b", by turns: their logs fill and drain), their last writes "buf.wT.last", while a
//   third creates and destroys buffers ("buf.churn", destroyed), each destroy draining the
//   writers' logs.
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "scenario_common.h"

using scenario::Context;

namespace {

VkImage g_image = VK_NULL_HANDLE;

VkImageView view(const Context& ctx, const char* name) {
  return scenario::create_image_view(ctx, g_image, name);
}

void write_image(const Context& ctx, VkDescriptorSet set, uint32_t binding, VkImageView v) {
  VkDescriptorImageInfo info{VK_NULL_HANDLE, v, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
  VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
  w.dstSet = set;
  w.dstBinding = binding;
  w.descriptorCount = 1;
  w.descriptorType = VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE;
  w.pImageInfo = &info;
  vkUpdateDescriptorSets(ctx.device, 1, &w, 0, nullptr);
}

VkBuffer buffer(const Context& ctx, const std::string& name) {
  return harness::create_buffer_object(ctx, 256, VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, name);
}

void write_buffer(const Context& ctx, VkDescriptorSet set, VkBuffer b) {
  harness::write_buffer_descriptor(ctx, set, 0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, b);
}

}  // namespace

int main(int argc, char** argv) {
  scenario::Options options("descriptor_writes",
                            "Descriptor writes resolved later: handle reuse, renames, freed "
                            "sets, coalescing, threads. Submits nothing.",
                            0);
  uint32_t churn = 0;
  options.add_uint("--churn", &churn, "writes per writer thread while a third destroys buffers");
  options.parse(argc, argv);
  Context ctx({"descriptor_writes", false});
  if (!ctx.debug_utils) scenario::fail("VK_EXT_debug_utils is needed to name the objects");

  const VkDescriptorType si = VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE;
  const VkDescriptorType ub = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
  g_image = scenario::create_image(ctx, {4, 4}, VK_IMAGE_USAGE_SAMPLED_BIT, "image");
  const VkDescriptorSetLayout images =
      harness::create_set_layout(ctx, {si, si}, VK_SHADER_STAGE_FRAGMENT_BIT, "layout.images");
  const VkDescriptorSetLayout buffers =
      harness::create_set_layout(ctx, {ub}, VK_SHADER_STAGE_FRAGMENT_BIT, "layout.buffers");
  const VkDescriptorPool pool = harness::create_descriptor_pool(
      ctx, 16, {{si, 16}, {ub, 16}}, VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT, "pool");

  // Handle reuse after a destroy.
  const VkDescriptorSet reuse = harness::allocate_set(ctx, pool, images, "set.reuse");
  const VkImageView old_view = view(ctx, "view.old");
  write_image(ctx, reuse, 0, old_view);
  vkDestroyImageView(ctx.device, old_view, nullptr);
  const VkImageView new_view = view(ctx, "view.new");
  std::fprintf(stderr, "view.new %s view.old's handle\n",
               new_view == old_view ? "reuses" : "does not reuse");

  // A rename after the write.
  const VkDescriptorSet renamed = harness::allocate_set(ctx, pool, images, "set.renamed");
  const VkImageView before = view(ctx, "view.before");
  write_image(ctx, renamed, 0, before);
  ctx.name(VK_OBJECT_TYPE_IMAGE_VIEW, before, "view.after");

  // A set freed with its write pending.
  const VkDescriptorSet freed = harness::allocate_set(ctx, pool, buffers, "set.freed");
  write_buffer(ctx, freed, buffer(ctx, "buf.freed.target"));
  VK_CHECK(vkFreeDescriptorSets(ctx.device, pool, 1, &freed));
  const VkDescriptorSet after = harness::allocate_set(ctx, pool, buffers, "set.after");
  std::fprintf(stderr, "set.after %s set.freed's handle\n",
               after == freed ? "reuses" : "does not reuse");

  // A slot written again keeps its edge's place.
  const VkDescriptorSet order = harness::allocate_set(ctx, pool, images, "set.order");
  write_image(ctx, order, 0, view(ctx, "view.a"));
  write_image(ctx, order, 1, view(ctx, "view.b"));
  write_image(ctx, order, 0, view(ctx, "view.c"));

  // One call of the same shape every "frame" (replaced in place in the log), with another
  // set's write between two of them (then appended again).
  const VkDescriptorSet frames = harness::allocate_set(ctx, pool, images, "set.frames");
  const VkDescriptorSet between = harness::allocate_set(ctx, pool, images, "set.between");
  for (int f = 0; f < 4; ++f) {
    const std::string n = std::to_string(f);
    VkDescriptorImageInfo infos[2] = {{VK_NULL_HANDLE, view(ctx, ("view.f" + n + ".0").c_str()),
                                       VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL},
                                      {VK_NULL_HANDLE, view(ctx, ("view.f" + n + ".1").c_str()),
                                       VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL}};
    VkWriteDescriptorSet w[2] = {};
    for (uint32_t b = 0; b < 2; ++b) {
      w[b].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
      w[b].dstSet = frames;
      w[b].dstBinding = 1 - b;  // binding 1 first: its edge comes first
      w[b].descriptorCount = 1;
      w[b].descriptorType = si;
      w[b].pImageInfo = &infos[b];
    }
    vkUpdateDescriptorSets(ctx.device, 2, w, 0, nullptr);
    if (f == 1) write_image(ctx, between, 0, view(ctx, "view.between"));
  }

  // Two threads writing one set in turn.
  const VkDescriptorSet shared = harness::allocate_set(ctx, pool, buffers, "set.shared");
  const VkDescriptorSet own = harness::allocate_set(ctx, pool, buffers, "set.t1");
  const VkBuffer t1 = buffer(ctx, "buf.t1"), t2 = buffer(ctx, "buf.t2");
  const VkBuffer t1_own = buffer(ctx, "buf.t1.own");
  std::thread first([&] {
    write_buffer(ctx, own, t1_own);  // this thread's log is made first
    std::thread second([&] { write_buffer(ctx, shared, t2); });
    second.join();
    write_buffer(ctx, shared, t1);
  });
  first.join();

  if (churn) {
    // Each writer alternates between two sets: calls of two shapes, never replaced in place,
    // so its log fills and drains itself besides the destroyer's drains.
    VkDescriptorSet sets[2][2];
    for (int t = 0; t < 2; ++t) {
      sets[t][0] = harness::allocate_set(ctx, pool, buffers, "set.w" + std::to_string(t));
      sets[t][1] = harness::allocate_set(ctx, pool, buffers, "set.w" + std::to_string(t) + ".b");
    }
    std::vector<VkBuffer> targets[2];
    for (int t = 0; t < 2; ++t) {
      for (int i = 0; i < 8; ++i)
        targets[t].push_back(buffer(ctx, "buf.w" + std::to_string(t) + "." + std::to_string(i)));
      targets[t].push_back(buffer(ctx, "buf.w" + std::to_string(t) + ".last"));
    }
    std::thread writers[2];
    for (int t = 0; t < 2; ++t) {
      writers[t] = std::thread([&, t] {
        for (uint32_t i = 0; i < churn; ++i) {
          write_buffer(ctx, sets[t][0], targets[t][i % 8]);
          write_buffer(ctx, sets[t][1], targets[t][(i + 1) % 8]);
        }
        write_buffer(ctx, sets[t][0], targets[t][8]);
        write_buffer(ctx, sets[t][1], targets[t][8]);
      });
    }
    std::thread destroyer([&] {
      for (uint32_t i = 0; i < churn; ++i)
        vkDestroyBuffer(ctx.device, buffer(ctx, "buf.churn"), nullptr);
    });
    for (auto& w : writers) w.join();
    destroyer.join();
  }

  ctx.destroy();  // the sets and targets are still alive here: the snapshot shows their edges
  std::printf("done\n");
  return 0;
}
