// Incident 3: released too early.
//
// A compute pass: pipeline "compute.pipeline", descriptor set "compute.bindings" (storage buffer
// "compute.input" at binding 0, storage texel buffer view "compute.view" of "compute.texels" at
// binding 1); each frame binds and dispatches, and is submitted with a fence. In frame
// --free-frame K the --object is destroyed right after vkQueueSubmit, before any fence wait or
// idle (the bug). The program sleeps 50 ms first so that lavapipe has really finished and nothing
// crashes; then it waits for the fence, recreates the object and goes on. Nothing leaks at exit.
#include <cstdio>
#include <string>

#include "early_free_comp.h"
#include "scenario_common.h"

using scenario::Context;

constexpr uint32_t kElements = 256;
constexpr VkDeviceSize kBytes = kElements * sizeof(uint32_t);

struct ComputePass {
  VkShaderModule shader = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  VkPipelineLayout pipeline_layout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  VkDescriptorSet set = VK_NULL_HANDLE;
  scenario::Buffer input;
  scenario::Buffer texels;
  VkBufferView view = VK_NULL_HANDLE;
};

VkBuffer create_input_buffer(const Context& ctx) {
  return scenario::create_buffer_object(ctx, kBytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                        "compute.input");
}

VkBufferView create_view(const Context& ctx, VkBuffer buffer) {
  VkBufferViewCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO};
  info.buffer = buffer;
  info.format = VK_FORMAT_R32_UINT;
  info.range = VK_WHOLE_SIZE;
  VkBufferView view = VK_NULL_HANDLE;
  VK_CHECK(vkCreateBufferView(ctx.device, &info, nullptr, &view));
  ctx.name(VK_OBJECT_TYPE_BUFFER_VIEW, view, "compute.view");
  return view;
}

VkPipeline create_pipeline(const Context& ctx, const ComputePass& pass) {
  return scenario::create_compute_pipeline(ctx, pass.pipeline_layout, pass.shader,
                                           "compute.pipeline");
}

// Allocates (if needed) and writes "compute.bindings".
void write_set(const Context& ctx, ComputePass& pass) {
  if (pass.set == VK_NULL_HANDLE) {
    pass.set = scenario::allocate_set(ctx, pass.pool, pass.set_layout, "compute.bindings");
  }
  scenario::write_buffer_descriptor(ctx, pass.set, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                    pass.input.buffer);
  VkWriteDescriptorSet write{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
  write.dstSet = pass.set;
  write.dstBinding = 1;
  write.descriptorCount = 1;
  write.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER;
  write.pTexelBufferView = &pass.view;
  vkUpdateDescriptorSets(ctx.device, 1, &write, 0, nullptr);
}

ComputePass create_pass(const Context& ctx) {
  ComputePass pass;
  pass.shader = scenario::create_shader_module(ctx, early_free_comp, "compute.shader");
  pass.set_layout = scenario::create_set_layout(
      ctx, {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER},
      VK_SHADER_STAGE_COMPUTE_BIT, "compute.set_layout");
  pass.pipeline_layout =
      scenario::create_pipeline_layout(ctx, {pass.set_layout}, "compute.pipeline_layout");
  pass.pipeline = create_pipeline(ctx, pass);
  pass.pool = scenario::create_descriptor_pool(
      ctx, 1,
      {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1}, {VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER, 1}},
      VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT, "compute.descriptor_pool");
  pass.input =
      scenario::create_buffer(ctx, kBytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, "compute.input");
  pass.texels = scenario::create_buffer(ctx, kBytes, VK_BUFFER_USAGE_STORAGE_TEXEL_BUFFER_BIT,
                                        "compute.texels");
  pass.view = create_view(ctx, pass.texels.buffer);
  write_set(ctx, pass);
  return pass;
}

void destroy_pass(const Context& ctx, ComputePass& pass) {
  vkDestroyDescriptorPool(ctx.device, pass.pool, nullptr);  // frees "compute.bindings"
  vkDestroyBufferView(ctx.device, pass.view, nullptr);
  scenario::destroy_buffer(ctx, pass.texels);
  scenario::destroy_buffer(ctx, pass.input);
  vkDestroyPipeline(ctx.device, pass.pipeline, nullptr);
  vkDestroyPipelineLayout(ctx.device, pass.pipeline_layout, nullptr);
  vkDestroyDescriptorSetLayout(ctx.device, pass.set_layout, nullptr);
  vkDestroyShaderModule(ctx.device, pass.shader, nullptr);
  pass = ComputePass{};
}

// The bug: destroys `object` while the submission just made still references it.
void destroy_early(const Context& ctx, ComputePass& pass, const std::string& object) {
  if (object == "set") {
    VK_CHECK(vkFreeDescriptorSets(ctx.device, pass.pool, 1, &pass.set));
    pass.set = VK_NULL_HANDLE;
  } else if (object == "buffer") {
    vkDestroyBuffer(ctx.device, pass.input.buffer, nullptr);  // its memory stays
    pass.input.buffer = VK_NULL_HANDLE;
  } else if (object == "view") {
    vkDestroyBufferView(ctx.device, pass.view, nullptr);
    pass.view = VK_NULL_HANDLE;
  } else {
    vkDestroyPipeline(ctx.device, pass.pipeline, nullptr);
    pass.pipeline = VK_NULL_HANDLE;
  }
}

// After the fence wait: recreates what destroy_early destroyed.
void recreate(const Context& ctx, ComputePass& pass, const std::string& object) {
  if (object == "buffer") {
    pass.input.buffer = create_input_buffer(ctx);
    VK_CHECK(vkBindBufferMemory(ctx.device, pass.input.buffer, pass.input.memory, 0));
  } else if (object == "view") {
    pass.view = create_view(ctx, pass.texels.buffer);
  } else if (object == "pipeline") {
    pass.pipeline = create_pipeline(ctx, pass);
  }
  if (object != "pipeline") write_set(ctx, pass);
}

int main(int argc, char** argv) {
  scenario::Options options("incident3_early_free",
                            "Destroys an object referenced by a submission right after "
                            "vkQueueSubmit, before the fence wait.");
  uint32_t free_frame = 10;
  std::string object = "set";
  options.add_uint("--free-frame", &free_frame, "frame in which the object is freed (default 10)");
  options.add_string("--object", &object,
                     "what is destroyed early (default set = \"compute.bindings\"; buffer = "
                     "\"compute.input\", view = \"compute.view\", pipeline = \"compute.pipeline\")",
                     {"set", "buffer", "view", "pipeline"});
  options.parse(argc, argv);

  Context ctx({"incident3_early_free", options.swapchain});
  scenario::FrameLoop loop(ctx, {options.swapchain});
  ComputePass pass = create_pass(ctx);

  static const char* const kTypeNames[][2] = {{"set", "VkDescriptorSet \"compute.bindings\""},
                                              {"buffer", "VkBuffer \"compute.input\""},
                                              {"view", "VkBufferView \"compute.view\""},
                                              {"pipeline", "VkPipeline \"compute.pipeline\""}};
  const char* described = "";
  for (const auto& entry : kTypeNames) {
    if (object == entry[0]) described = entry[1];
  }

  for (uint32_t i = 0; i < options.frames; ++i) {
    VkCommandBuffer cmd = loop.begin_frame();
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pass.pipeline);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pass.pipeline_layout, 0, 1,
                            &pass.set, 0, nullptr);
    vkCmdDispatch(cmd, kElements / 64, 1, 1);
    loop.end_frame();
    if (i == free_frame) {
      scenario::sleep_ms(50);  // lavapipe is done by now: the misuse must not crash the run
      destroy_early(ctx, pass, object);
      std::fprintf(stderr,
                   "incident3: destroyed %s in frame %u right after vkQueueSubmit, before any "
                   "fence wait\n",
                   described, i);
      loop.wait_last_submit();
      recreate(ctx, pass, object);
    }
  }

  loop.destroy();
  destroy_pass(ctx, pass);
  ctx.destroy();
  std::printf("done: %u frames\n", options.frames);
  return 0;
}
