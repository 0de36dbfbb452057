#include "fixture.h"

#include <utility>

namespace vkleak::html_test {

using analysis::Chain;
using analysis::ChainLink;
using analysis::ExampleObject;
using analysis::Finding;
using analysis::FindingKind;
using analysis::Frame;

namespace {

std::vector<Frame> callsite(const std::vector<std::string>& texts) {
  std::vector<Frame> out;
  for (const std::string& text : texts) {
    Frame frame;
    frame.text = text;
    out.push_back(std::move(frame));
  }
  return out;
}

Finding finding(FindingKind kind, const std::string& type, uint64_t count, uint64_t bytes,
                std::vector<std::string> names, const std::vector<std::string>& frames,
                uint64_t first, uint64_t last, std::string message) {
  Finding f;
  f.kind = kind;
  f.object_type = type;
  f.count = count;
  f.bytes = bytes;
  f.names = std::move(names);
  f.callsite = callsite(frames);
  f.frames.first = first;
  f.frames.last = last;
  f.message = std::move(message);
  return f;
}

ChainLink link(const std::string& type, const std::string& name, uint64_t id, uint64_t bytes = 0,
               analysis::ChainState state = analysis::ChainState::kLive) {
  ChainLink l;
  l.type = type;
  l.name = name;
  l.id = id;
  l.bytes = bytes;
  l.state = state;
  return l;
}

ExampleObject example(uint64_t id, uint64_t handle, const std::string& name) {
  ExampleObject e;
  e.id = id;
  e.handle = handle;
  e.name = name;
  return e;
}

std::vector<uint64_t> steps(uint64_t first, uint64_t step, size_t n) {
  std::vector<uint64_t> out;
  for (size_t i = 0; i < n; ++i) out.push_back(first + step * i);
  return out;
}

}  // namespace

analysis::Finding misuse_finding() {
  Finding f;
  f.kind = FindingKind::kDestroyedInFlight;
  f.object_type = "VkImage";
  f.count = 300;
  for (int i = 0; i < 300; ++i) f.names.push_back("thumb." + std::to_string(i));
  f.message = "VkImage \"thumb.0\" (id 12) destroyed";
  Frame frame;
  frame.text = "drop<script> (/src/app.cpp:30) (inlined)";
  frame.inlined = true;
  f.stacks.push_back({"destroyed here", {frame}, {}, ""});
  f.stacks.push_back({"while in use by", {}, {"queue 0, submission 7, frame 40"}, ""});
  f.stacks.push_back({"created here", {}, {}, "at frame 3; stack not recorded"});
  return f;
}

analysis::ReportDocument incident_fixture() {
  analysis::ReportDocument doc;
  analysis::RunReport run;
  run.pid = 48213;
  run.executable = "/work/build/tests/scenarios/incidents_1_2_5";
  const std::vector<uint64_t> frames = steps(20, 20, 15);
  for (size_t i = 0; i < frames.size(); ++i) {
    run.snapshots.push_back(
        {"snap-" + std::to_string(i) + ".json", i + 1, "periodic", frames[i], 100 + i});
  }

  const std::string incident1 = "incident1_wrapper_growth.cpp";
  const std::string incident2 = "incident2_stale_view_cache.cpp";
  const std::string incident5 = "incident5_bindgroup_cache.cpp";
  const std::string script = "imgui.texture.<script>alert(1)</script>";
  const std::string atlas = "tex \"atlas\" & 'hud' </td></table>";

  Finding growth =
      finding(FindingKind::kGrowth, "VkBuffer", 300, 19660800, {"wrapper.vertices"},
              {"GpuBuffer::GpuBuffer() (" + incident1 + ":42)",
               "Mesh::upload(Frame&) (" + incident1 + ":88)", "main (" + incident1 + ":131)"},
              20, 300,
              "VkBuffer count from GpuBuffer::GpuBuffer() rose in every snapshot: 20 -> 300 (+1 "
              "per frame)");
  growth.examples = {example(912, 0x55d0c0b41230, "wrapper.vertices"),
                     example(915, 0x55d0c0b41290, "wrapper.vertices")};
  run.findings.push_back(std::move(growth));
  run.findings.push_back(finding(
      FindingKind::kGrowth, "VkDeviceMemory", 300, 19660800, {"wrapper.vertices.mem"},
      {"GpuBuffer::GpuBuffer() (" + incident1 + ":47)",
       "Mesh::upload(Frame&) (" + incident1 + ":88)"},
      20, 300, "VkDeviceMemory bytes from GpuBuffer::GpuBuffer() rose from 1.2 MiB to 18.8 MiB"));
  run.findings.push_back(finding(
      FindingKind::kRetained, "VkBuffer", 280, 18350080, {"wrapper.vertices"},
      {"GpuBuffer::GpuBuffer() (" + incident1 + ":42)",
       "Mesh::upload(Frame&) (" + incident1 + ":88)"},
      20, 280,
      "280 VkBuffers not used by any submission for 20+ frames while newer ones from the same call "
      "site are"));

  Finding stale = finding(
      FindingKind::kStaleView, "VkBufferView", 5, 20971520, {"pass.attachment.view"},
      {"ViewCache::get(VkBuffer) (" + incident2 + ":57)",
       "FrameGraph::compile() (" + incident2 + ":102)", "main (" + incident2 + ":160)"},
      50, 250, "5 cached VkBufferViews pin buffers that were replaced on resize (20.0 MiB held)");
  stale.chains.push_back(Chain{{link("VkBufferView", "pass.attachment.view", 20),
                                link("VkBuffer", "pass.attachment", 18, 4194304),
                                link("VkDeviceMemory", "pass.attachment.mem", 19, 4194304)},
                               20971520});
  stale.examples = {example(20, 0x7f31a0001000, "pass.attachment.view")};
  run.findings.push_back(std::move(stale));

  Finding retained = finding(
      FindingKind::kRetained, "VkBuffer", 5, 20971520, {"pass.attachment"},
      {"FrameGraph::resize(uint32_t) (" + incident2 + ":81)", "main (" + incident2 + ":155)"}, 50,
      250, "5 old attachment buffers kept alive by cached views");
  retained.chains.push_back(Chain{{link("VkBuffer", "pass.attachment", 18, 4194304),
                                   link("VkDeviceMemory", "pass.attachment.mem", 19, 4194304)},
                                  20971520});
  run.findings.push_back(std::move(retained));

  const std::string add_texture =
      "ImGui_ImplVulkan_AddTexture(VkSampler, VkImageView, VkImageLayout) (" + incident5 + ":64)";
  Finding sets = finding(
      FindingKind::kStaleView, "VkDescriptorSet", 52, 0,
      {script, atlas, "imgui.texture.3", "imgui.texture.4"},
      {add_texture, "TextureCache::bind(Texture&) (" + incident5 + ":90)"}, 40, 300,
      "52 cached descriptor sets reference destroyed image views <img src=x onerror=alert(2)>");
  sets.chains.push_back(Chain{{link("VkDescriptorSet", script, 640),
                               link("VkImageView", atlas, 600, 0, analysis::ChainState::kDestroyed),
                               link("VkImage", "hud.atlas", 598, 8388608)},
                              0});
  sets.examples = {example(640, 0x55d0c0c00040, script)};
  // Why the sets are alive: the pool that owns them (and, through them, views), and sets that
  // several roots reach.
  analysis::RetainerRoot pool;
  pool.id = 630;
  pool.type = "VkDescriptorPool";
  pool.name = "imgui.pool <b>";
  pool.objects = 40;
  pool.counts = {{"VkDescriptorSet", 40}, {"VkImageView", 12}};
  pool.bytes = 100663296;
  pool.path = {link("VkDescriptorPool", "imgui.pool <b>", 630),
               link("VkDescriptorSet", script, 640)};
  analysis::RetainerRoot shared;
  shared.shared = true;
  shared.objects = 12;
  shared.counts = {{"VkDescriptorSet", 12}};
  shared.bytes = 0;
  sets.retainers = {pool, shared};
  run.findings.push_back(std::move(sets));
  run.findings.push_back(finding(FindingKind::kLeakAtExit, "VkDescriptorSet", 64, 0,
                                 {script, "imgui.texture.3"}, {add_texture}, 300, 300,
                                 "64 VkDescriptorSets still alive at vkDestroyDevice"));
  run.findings.push_back(finding(
      FindingKind::kDestroyedInFlight, "VkDescriptorSet", 1, 0, {"imgui.texture.7"},
      {"TextureCache::evict() (" + incident5 + ":112)"}, 180, 180,
      "VkDescriptorSet freed while submission 361 on queue 0 (frame 179) may still use it"));

  analysis::RunSeries& s = run.series;
  s.frames = frames;
  const auto type = [&](const std::string& name, std::vector<uint64_t> live,
                        std::vector<uint64_t> bytes) {
    s.types.push_back({name, std::move(live), std::move(bytes)});
  };
  const std::vector<uint64_t> zero(15, 0);
  type("VkBuffer", {33, 53, 74, 94, 115, 135, 155, 176, 196, 217, 237, 257, 278, 298, 319},
       {8650752, 9961472, 15466496, 16777216, 22282240, 23592960, 24903680, 30408704, 31719424,
        37224448, 38535168, 39845888, 45350912, 46661632, 52166656});
  type("VkDeviceMemory", {27, 47, 68, 88, 109, 129, 149, 170, 190, 211, 231, 251, 272, 292, 313},
       {55836672, 57147392, 62652416, 63963136, 69468160, 70778880, 72089600, 77594624, 78905344,
        84410368, 85721088, 87031808, 92536832, 93847552, 99352576});
  const std::vector<uint64_t> views = {1, 1, 2, 2, 3, 3, 3, 4, 4, 5, 5, 5, 6, 6, 7};
  type("VkBufferView", views, zero);
  type("VkDescriptorSet", steps(8, 4, 15), zero);
  const std::vector<uint64_t> cycle = {6, 7, 8, 6, 7, 8, 6, 7, 8, 6, 7, 8, 6, 7, 8};
  type("VkImageView", cycle, zero);
  type("VkImage", std::vector<uint64_t>(15, 4), std::vector<uint64_t>(15, 33554432));
  type("VkCommandBuffer", std::vector<uint64_t>(15, 3), zero);
  type("VkPipeline", std::vector<uint64_t>(15, 2), zero);
  type("VkSemaphore", std::vector<uint64_t>(15, 6), zero);
  type("VkFence", std::vector<uint64_t>(15, 3), zero);

  const auto group = [&](const std::string& object_type, const std::string& pattern,
                         const std::string& function, std::vector<uint64_t> live,
                         std::vector<uint64_t> bytes) {
    s.groups.push_back({object_type, pattern, function, std::move(live), std::move(bytes)});
  };
  group("VkBuffer", "wrapper.vertices", "GpuBuffer::GpuBuffer", steps(20, 20, 15),
        steps(1310720, 1310720, 15));
  group("VkDeviceMemory", "wrapper.vertices.mem", "GpuBuffer::GpuBuffer", steps(20, 20, 15),
        steps(1310720, 1310720, 15));
  group("VkDescriptorSet", "imgui.texture.<script>alert('g')</script>",
        "ImGui_ImplVulkan_AddTexture", steps(8, 4, 15), zero);
  std::vector<uint64_t> view_bytes;
  for (uint64_t v : views) view_bytes.push_back(v * 4194304);
  group("VkBuffer", "pass.attachment", "FrameGraph::resize", views, view_bytes);
  group("VkBufferView", "pass.attachment.view", "ViewCache::get", views, zero);
  group("VkImageView", "hud.atlas.view", "Hud::init", cycle, zero);
  doc.runs.push_back(std::move(run));
  return doc;
}

}  // namespace vkleak::html_test
