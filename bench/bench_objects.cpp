// Object lifetime benchmarks: create+destroy pairs with many other objects alive, threads
// churning on one device, a snapshot of many live objects, and resident memory per object.
#include <benchmark/benchmark.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "bench_context.h"
#include "bench_options.h"

namespace bench {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Each pair benchmark first brings the filler count to its `live` argument (not timed: setup runs
// before the measured loop, and is a no-op when the count is already right).
void BM_BufferPair(benchmark::State& state) {
  set_live_fillers(static_cast<size_t>(state.range(0)));
  Context& ctx = context();
  const VkBufferCreateInfo info = buffer_info(4096);
  for (auto _ : state) {
    VkBuffer b;
    VK_CHECK(vkCreateBuffer(ctx.device, &info, nullptr, &b));
    vkDestroyBuffer(ctx.device, b, nullptr);
  }
  state.SetItemsProcessed(state.iterations());
}

// One image with memory, shared by every view (a view of an image without memory is invalid).
struct SharedImage {
  VkImage image = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
};
SharedImage& shared_image() {
  static SharedImage* s = [] {
    Context& ctx = context();
    auto* img = new SharedImage;
    img->image = harness::create_image(ctx, {64, 64}, VK_IMAGE_USAGE_SAMPLED_BIT, "");
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(ctx.device, img->image, &req);
    img->memory = harness::allocate_memory_of_type(ctx, req.size,
                                                   ctx.find_memory_type(req.memoryTypeBits, 0), "");
    VK_CHECK(vkBindImageMemory(ctx.device, img->image, img->memory, 0));
    at_teardown([img] {
      vkDestroyImage(context().device, img->image, nullptr);
      vkFreeMemory(context().device, img->memory, nullptr);
    });
    return img;
  }();
  return *s;
}

void BM_ImageViewPair(benchmark::State& state) {
  set_live_fillers(static_cast<size_t>(state.range(0)));
  Context& ctx = context();
  VkImageViewCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO;
  info.image = shared_image().image;
  info.viewType = VK_IMAGE_VIEW_TYPE_2D;
  info.format = VK_FORMAT_R8G8B8A8_UNORM;
  info.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  for (auto _ : state) {
    VkImageView v;
    VK_CHECK(vkCreateImageView(ctx.device, &info, nullptr, &v));
    vkDestroyImageView(ctx.device, v, nullptr);
  }
  state.SetItemsProcessed(state.iterations());
}

struct SetPool {
  VkDescriptorSetLayout layout = VK_NULL_HANDLE;
  VkDescriptorPool pool = VK_NULL_HANDLE;
};
SetPool& set_pool() {
  static SetPool* s = [] {
    Context& ctx = context();
    auto* p = new SetPool;
    p->layout = harness::create_set_layout(ctx, {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER},
                                           VK_SHADER_STAGE_VERTEX_BIT, "");
    p->pool =
        harness::create_descriptor_pool(ctx, 4, {{VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 4}},
                                        VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT, "");
    at_teardown([p] {
      vkDestroyDescriptorPool(context().device, p->pool, nullptr);
      vkDestroyDescriptorSetLayout(context().device, p->layout, nullptr);
    });
    return p;
  }();
  return *s;
}

void BM_DescriptorSetPair(benchmark::State& state) {
  set_live_fillers(static_cast<size_t>(state.range(0)));
  Context& ctx = context();
  SetPool& p = set_pool();
  VkDescriptorSetAllocateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
  info.descriptorPool = p.pool;
  info.descriptorSetCount = 1;
  info.pSetLayouts = &p.layout;
  for (auto _ : state) {
    VkDescriptorSet set;
    VK_CHECK(vkAllocateDescriptorSets(ctx.device, &info, &set));
    VK_CHECK(vkFreeDescriptorSets(ctx.device, p.pool, 1, &set));
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_MemoryPair(benchmark::State& state) {
  set_live_fillers(static_cast<size_t>(state.range(0)));
  Context& ctx = context();
  VkMemoryAllocateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  info.allocationSize = 256;
  info.memoryTypeIndex = ctx.find_memory_type(~0u, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
  for (auto _ : state) {
    VkDeviceMemory m;
    VK_CHECK(vkAllocateMemory(ctx.device, &info, nullptr, &m));
    vkFreeMemory(ctx.device, m, nullptr);
  }
  state.SetItemsProcessed(state.iterations());
}

// vkUpdateDescriptorSets with 8 writes into one set, the call engines make thousands of times a
// frame: 4 uniform buffers and 4 sampled image views, the first two of each named. Iterations
// alternate between two groups of targets, so every write replaces the slot's edge with one to
// another object (and another name, or none).
struct WriteTargets {
  VkDescriptorSetLayout layout = VK_NULL_HANDLE;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  VkDescriptorSet set = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkBuffer buffers[2][4] = {};
  VkImageView views[2][4] = {};
  VkDescriptorBufferInfo buffer_infos[2][4] = {};
  VkDescriptorImageInfo image_infos[2][4] = {};
  VkWriteDescriptorSet writes[2][8] = {};
};
WriteTargets& write_targets() {
  static WriteTargets* s = [] {
    Context& ctx = context();
    auto* w = new WriteTargets;
    const VkDescriptorType ub = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
    const VkDescriptorType si = VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE;
    w->layout = harness::create_set_layout(ctx, {ub, ub, ub, ub, si, si, si, si},
                                           VK_SHADER_STAGE_FRAGMENT_BIT, "");
    w->pool = harness::create_descriptor_pool(ctx, 1, {{ub, 4}, {si, 4}}, 0, "");
    w->set = harness::allocate_set(ctx, w->pool, w->layout, "");
    const VkImage image = shared_image().image;
    for (int g = 0; g < 2; ++g) {
      for (int i = 0; i < 4; ++i) {
        VkBuffer& b = w->buffers[g][i];
        b = harness::create_buffer_object(ctx, 256, VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, "");
        if (!w->memory) {
          VkMemoryRequirements req;
          vkGetBufferMemoryRequirements(ctx.device, b, &req);
          w->memory = harness::allocate_memory(ctx, req.size, req.memoryTypeBits, "");
        }
        VK_CHECK(vkBindBufferMemory(ctx.device, b, w->memory, 0));  // aliasing: valid
        w->views[g][i] = harness::create_image_view(ctx, image, "");
        if (i < 2) {
          const std::string n = "bench.g" + std::to_string(g) + "." + std::to_string(i);
          ctx.name(VK_OBJECT_TYPE_BUFFER, harness::handle_u64(b), (n + ".buffer").c_str());
          ctx.name(VK_OBJECT_TYPE_IMAGE_VIEW, harness::handle_u64(w->views[g][i]),
                   (n + ".view").c_str());
        }
        w->buffer_infos[g][i] = {b, 0, VK_WHOLE_SIZE};
        w->image_infos[g][i] = {VK_NULL_HANDLE, w->views[g][i],
                                VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
      }
      for (uint32_t k = 0; k < 8; ++k) {
        VkWriteDescriptorSet& wr = w->writes[g][k];
        wr.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
        wr.dstSet = w->set;
        wr.dstBinding = k;
        wr.descriptorCount = 1;
        wr.descriptorType = k < 4 ? ub : si;
        if (k < 4) {
          wr.pBufferInfo = &w->buffer_infos[g][k];
        } else {
          wr.pImageInfo = &w->image_infos[g][k - 4];
        }
      }
    }
    at_teardown([w] {
      VkDevice d = context().device;
      vkDestroyDescriptorPool(d, w->pool, nullptr);
      vkDestroyDescriptorSetLayout(d, w->layout, nullptr);
      for (int g = 0; g < 2; ++g) {
        for (int i = 0; i < 4; ++i) {
          vkDestroyImageView(d, w->views[g][i], nullptr);
          vkDestroyBuffer(d, w->buffers[g][i], nullptr);
        }
      }
      vkFreeMemory(d, w->memory, nullptr);
    });
    return w;
  }();
  return *s;
}

void BM_DescriptorUpdate8(benchmark::State& state) {
  set_live_fillers(static_cast<size_t>(state.range(0)));
  Context& ctx = context();
  WriteTargets& w = write_targets();
  uint32_t i = 0;
  for (auto _ : state) {
    vkUpdateDescriptorSets(ctx.device, 8, w.writes[i & 1], 0, nullptr);
    ++i;
  }
  state.SetItemsProcessed(state.iterations());
}

// The same writes, then a buffer create+destroy: with descriptor writes resolved later (issue
// 28), the destroy resolves the pending writes first, so each iteration pays the writes' whole
// cost (log + resolution). Against no layer, compare with BM_BufferPair's own figure.
void BM_DescriptorUpdate8Drained(benchmark::State& state) {
  set_live_fillers(static_cast<size_t>(state.range(0)));
  Context& ctx = context();
  WriteTargets& w = write_targets();
  const VkBufferCreateInfo info = buffer_info(4096);
  uint32_t i = 0;
  for (auto _ : state) {
    vkUpdateDescriptorSets(ctx.device, 8, w.writes[i & 1], 0, nullptr);
    ++i;
    VkBuffer b;
    VK_CHECK(vkCreateBuffer(ctx.device, &info, nullptr, &b));
    vkDestroyBuffer(ctx.device, b, nullptr);
  }
  state.SetItemsProcessed(state.iterations());
}

// What an engine's threads do every frame, each on its own: create an image view, name it
// (names repeat every 256 views), write it into a set, destroy it. Real time: items_per_second
// is the aggregate throughput; its speed-up with 2 threads, next to no layer's, shows whether
// named objects serialize threads in the layer.
void BM_NamedViewChurn(benchmark::State& state) {
  if (state.thread_index() == 0) set_live_fillers(0);
  Context& ctx = context();
  const VkImage image = shared_image().image;
  const VkDescriptorType si = VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE;
  const VkDescriptorSetLayout layout =
      harness::create_set_layout(ctx, {si}, VK_SHADER_STAGE_FRAGMENT_BIT, "");
  const VkDescriptorPool pool = harness::create_descriptor_pool(ctx, 1, {{si, 1}}, 0, "");
  const VkDescriptorSet set = harness::allocate_set(ctx, pool, layout, "");
  VkImageViewCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO;
  info.image = image;
  info.viewType = VK_IMAGE_VIEW_TYPE_2D;
  info.format = VK_FORMAT_R8G8B8A8_UNORM;
  info.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  VkDescriptorImageInfo image_info{VK_NULL_HANDLE, VK_NULL_HANDLE,
                                   VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
  VkWriteDescriptorSet write{};
  write.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
  write.dstSet = set;
  write.descriptorCount = 1;
  write.descriptorType = si;
  write.pImageInfo = &image_info;
  std::vector<std::string> names;
  for (int i = 0; i < 256; ++i)
    names.push_back("thread" + std::to_string(state.thread_index()) + ".view#" + std::to_string(i));
  uint32_t n = 0;
  for (auto _ : state) {
    VkImageView v;
    VK_CHECK(vkCreateImageView(ctx.device, &info, nullptr, &v));
    ctx.name(VK_OBJECT_TYPE_IMAGE_VIEW, harness::handle_u64(v), names[n++ & 255].c_str());
    image_info.imageView = v;
    vkUpdateDescriptorSets(ctx.device, 1, &write, 0, nullptr);
    vkDestroyImageView(ctx.device, v, nullptr);
  }
  state.SetItemsProcessed(state.iterations());
  vkDestroyDescriptorPool(ctx.device, pool, nullptr);
  vkDestroyDescriptorSetLayout(ctx.device, layout, nullptr);
}

// An empty vkQueueSubmit (no batches, no fence) with N other live objects: what a submit costs
// the layer when it has nothing to record. Its cost must not grow with the live objects.
void BM_EmptySubmit(benchmark::State& state) {
  set_live_fillers(static_cast<size_t>(state.range(0)));
  Context& ctx = context();
  for (auto _ : state) {
    VK_CHECK(vkQueueSubmit(ctx.queue, 0, nullptr, VK_NULL_HANDLE));
  }
  state.SetItemsProcessed(state.iterations());
}

// A call the layer only watches for errors (vkGetFenceStatus: no object is made or used): what
// watching costs, against no layer and the validation layer.
void BM_FenceStatus(benchmark::State& state) {
  Context& ctx = context();
  VkFence fence = harness::create_fence(ctx, "", true);
  for (auto _ : state) {
    benchmark::DoNotOptimize(vkGetFenceStatus(ctx.device, fence));
  }
  vkDestroyFence(ctx.device, fence, nullptr);
  state.SetItemsProcessed(state.iterations());
}

// N threads creating and destroying buffers on one device. Real time, so items_per_second is the
// aggregate throughput of all threads (Google Benchmark sums the threads' items).
void BM_ThreadChurn(benchmark::State& state) {
  if (state.thread_index() == 0) set_live_fillers(0);
  Context& ctx = context();
  const VkBufferCreateInfo info = buffer_info(4096);
  for (auto _ : state) {
    VkBuffer b;
    VK_CHECK(vkCreateBuffer(ctx.device, &info, nullptr, &b));
    vkDestroyBuffer(ctx.device, b, nullptr);
  }
  state.SetItemsProcessed(state.iterations());
}

// Where vkleak writes snapshots: the same settings lookup as the layer, environment only
// (compare.py sets VKLEAK_OUTPUT_DIR).
std::string snapshot_dir() {
  for (const char* var : {"VKLEAK_OUTPUT_DIR", "VK_VKLEAK_TRACKER_OUTPUT_DIR"}) {
    const char* v = std::getenv(var);
    if (v && *v) return v;
  }
  return "vkleak-snapshots";
}

// The path of a finished "trigger" snapshot of this process in `dir`, or "" (the layer writes a
// temporary file and renames it, so a file under the final name is complete).
std::string find_trigger_snapshot(const std::string& dir) {
  const std::string prefix = "vkleak-" + std::to_string(getpid()) + "-";
  const std::string suffix = "-trigger.json";
  std::string found;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      if (name.size() > prefix.size() + suffix.size() &&
          name.compare(0, prefix.size(), prefix) == 0 &&
          name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
        found = dir + "/" + name;
        break;
      }
    }
    closedir(d);
  }
  return found;
}

// A snapshot of `live` objects taken with vkleak's in-band trigger, a queue debug label. The
// layer collects on the calling thread (the app-thread stall: the iteration time) and writes on
// its writer thread; written_ms is the time until the file appears under its final name.
void BM_Snapshot(benchmark::State& state) {
  if (!module_loaded("libVkLayer_vkleak")) {
    state.SkipWithError("vkleak layer not loaded: nothing to snapshot");
    return;
  }
  Context& ctx = context();
  if (!ctx.queue_insert_label) {
    state.SkipWithError("no VK_EXT_debug_utils: cannot trigger a snapshot");
    return;
  }
  set_live_fillers(static_cast<size_t>(state.range(0)));
  const std::string dir = snapshot_dir();
  // A stale file from an earlier iteration would be mistaken for this one.
  for (std::string old = find_trigger_snapshot(dir); !old.empty(); old = find_trigger_snapshot(dir))
    unlink(old.c_str());

  VkDebugUtilsLabelEXT label{};
  label.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT;
  label.pLabelName = "vkleak.snapshot:bench";
  std::vector<double> stall_ms, written_ms;
  double bytes = 0;
  for (auto _ : state) {
    const Clock::time_point t0 = Clock::now();
    ctx.queue_insert_label(ctx.queue, &label);
    const double stall = seconds_since(t0);
    state.SetIterationTime(stall);
    std::string path;
    while ((path = find_trigger_snapshot(dir)).empty()) {
      if (seconds_since(t0) > 60) {
        state.SkipWithError("no snapshot file within 60 s");
        return;
      }
      std::this_thread::sleep_for(std::chrono::microseconds(500));
    }
    stall_ms.push_back(stall * 1e3);
    written_ms.push_back(seconds_since(t0) * 1e3);
    struct stat st;
    bytes = stat(path.c_str(), &st) == 0 ? static_cast<double>(st.st_size) : 0;
    unlink(path.c_str());
  }
  state.counters["stall_ms"] = median(stall_ms);
  state.counters["written_ms"] = median(written_ms);
  state.counters["file_MB"] = bytes / 1e6;
  state.counters["live_objects"] = static_cast<double>(live_fillers());
}

// Resident memory per object: VmRSS after creating `objects` buffers minus before. Run it in a
// process of its own (compare.py does): memory freed by earlier benchmarks would be reused and
// hide the growth. With `bound:1` every buffer is also bound to one shared VkDeviceMemory (at
// offset 0: aliasing is valid), as most buffers of a real program are: a layer that records
// what each buffer is bound to pays for that too.
void BM_MemoryPerObject(benchmark::State& state) {
  Context& ctx = context();
  set_live_fillers(0);
  const size_t n = static_cast<size_t>(state.range(0));
  const bool bind = state.range(1) != 0;
  const VkBufferCreateInfo info = buffer_info(256);
  VkDeviceMemory memory = VK_NULL_HANDLE;
  if (bind) {
    VkBuffer probe;
    VK_CHECK(vkCreateBuffer(ctx.device, &info, nullptr, &probe));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(ctx.device, probe, &req);
    vkDestroyBuffer(ctx.device, probe, nullptr);
    memory = harness::allocate_memory_of_type(ctx, req.size,
                                              ctx.find_memory_type(req.memoryTypeBits, 0), "");
  }
  // Touched before the first RSS reading, so the handle array is not counted.
  std::vector<VkBuffer> buffers(n, VK_NULL_HANDLE);
  {
    // One creation first: one-time allocations (a layer's first call site, tables) are not
    // per-object costs.
    VkBuffer warm;
    VK_CHECK(vkCreateBuffer(ctx.device, &info, nullptr, &warm));
    if (bind) VK_CHECK(vkBindBufferMemory(ctx.device, warm, memory, 0));
    vkDestroyBuffer(ctx.device, warm, nullptr);
  }
  double before = 0, after = 0;
  for (auto _ : state) {
    before = static_cast<double>(rss_bytes());
    for (size_t i = 0; i < n; ++i) {
      VK_CHECK(vkCreateBuffer(ctx.device, &info, nullptr, &buffers[i]));
      if (bind) VK_CHECK(vkBindBufferMemory(ctx.device, buffers[i], memory, 0));
    }
    after = static_cast<double>(rss_bytes());
    state.PauseTiming();
    for (VkBuffer b : buffers) vkDestroyBuffer(ctx.device, b, nullptr);
    state.ResumeTiming();
  }
  if (memory) vkFreeMemory(ctx.device, memory, nullptr);
  state.counters["rss_before_MB"] = before / 1e6;
  state.counters["rss_after_MB"] = after / 1e6;
  state.counters["bytes_per_object"] = (after - before) / static_cast<double>(n);
}

}  // namespace

void register_object_benchmarks(const Options& o) {
  // By live count first, then workload: fillers grow monotonically through a run instead of
  // being rebuilt for each workload.
  for (int64_t live : o.live_counts) {
    const std::pair<const char*, void (*)(benchmark::State&)> pairs[] = {
        {"BM_BufferPair", BM_BufferPair},
        {"BM_ImageViewPair", BM_ImageViewPair},
        {"BM_DescriptorSetPair", BM_DescriptorSetPair},
        {"BM_MemoryPair", BM_MemoryPair},
        {"BM_DescriptorUpdate8", BM_DescriptorUpdate8},
        {"BM_DescriptorUpdate8Drained", BM_DescriptorUpdate8Drained},
        {"BM_EmptySubmit", BM_EmptySubmit}};
    for (const auto& [name, fn] : pairs) {
      auto* b = benchmark::RegisterBenchmark(name, fn)->ArgName("live")->Arg(live);
      if (o.pair_iterations > 0) {
        b->Iterations(o.pair_iterations);
      } else {
        b->MinWarmUpTime(o.warmup_s);
      }
    }
  }
  benchmark::RegisterBenchmark("BM_FenceStatus", BM_FenceStatus)->MinWarmUpTime(o.warmup_s);
  auto* churn = benchmark::RegisterBenchmark("BM_ThreadChurn", BM_ThreadChurn)
                    ->UseRealTime()
                    ->MinWarmUpTime(o.warmup_s);
  for (int t = 1; t <= o.max_threads; t *= 2) churn->Threads(t);
  auto* named = benchmark::RegisterBenchmark("BM_NamedViewChurn", BM_NamedViewChurn)
                    ->UseRealTime()
                    ->MinWarmUpTime(o.warmup_s);
  for (int t = 1; t <= o.max_threads; t *= 2) named->Threads(t);
  benchmark::RegisterBenchmark("BM_Snapshot", BM_Snapshot)
      ->ArgName("live")
      ->Arg(o.snapshot_objects)
      ->Iterations(o.snapshot_repeats)
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("BM_MemoryPerObject", BM_MemoryPerObject)
      ->ArgNames({"objects", "bound"})
      ->Args({o.memory_objects, 0})
      ->Args({o.memory_objects, 1})
      ->Iterations(1)
      ->Unit(benchmark::kMillisecond);
}

}  // namespace bench
