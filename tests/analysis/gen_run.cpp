// vkleak_gen_run OUT_DIR [--objects N] [--snapshots S] [--pid P] [--clean] [--teardown]
//                [--stacks N] [--module PATH --offsets FILE]
//
// Writes a synthetic run in the layer's form: S snapshots taken every 30 frames, about N objects
// each. Most objects are long-lived and in use; a fifth are new since the previous snapshot
// (churn, so diff has something born); unless --clean, one group leaks a buffer and its memory
// per frame, descriptor sets pile up that reference destroyed views, memory is orphaned every 5
// frames, and one set is freed in flight. --teardown adds device_destroy and instance_destroy
// snapshots. The long-lived objects come from --stacks distinct call sites (default 2000); with
// --module and --offsets (return addresses in that binary, one hex ELF address per line) each
// call site is 4 of those addresses, so that reports symbolize real code. For the scale
// benchmark (bench/report_scale.py) and the command tests.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "snapshot_builder.h"

namespace {

using vkleak::test::DestroyedSpec;
using vkleak::test::EdgeSpec;
using vkleak::test::EventSpec;
using vkleak::test::ObjectSpec;
using vkleak::test::SnapshotBuilder;
namespace format = vkleak::format;

struct Options {
  std::string out;
  uint64_t objects = 10000;
  uint64_t snapshots = 6;
  uint64_t pid = 4242;
  bool clean = false;
  bool teardown = false;
  uint64_t stacks = 2000;
  std::string module;
  std::vector<uint64_t> offsets;  // from --offsets
};

constexpr const char* kTypes[] = {"VkBuffer",    "VkImage", "VkImageView", "VkSampler",
                                  "VkPipeline",  "VkFence", "VkSemaphore", "VkShaderModule",
                                  "VkQueryPool", "VkEvent"};

// Ids are creation order, as the layer's are: frame, then a slot within the frame (ids 1 and 2
// are the instance and the device).
uint64_t id_of(uint64_t frame, uint64_t slot) {
  return 3 + (frame << 24) + slot;
}
enum Slot : uint64_t {
  kLeakBuffer,
  kLeakMemory,
  kOrphan,
  kSet,
  kView,
  kEvent,
  kPool,
  kChurn = 100,   // frame now - 1
  kStatic = 100,  // frame 0
};

// The leaks, as alive at frame `now`.
void add_leaks(SnapshotBuilder* s, uint64_t now, int leak_site, int memory_site, int set_site,
               int orphan_site) {
  for (uint64_t f = 0; f < now; ++f) {
    const uint64_t buffer = id_of(f, kLeakBuffer);
    const uint64_t memory = id_of(f, kLeakMemory);
    s->object(
        {buffer, "VkBuffer", "leak.vertices", f, 65536, leak_site, format::Origin::kCreated, f});
    s->object({memory, "VkDeviceMemory", "leak.vertices.memory", f, 65536, memory_site,
               format::Origin::kAllocated, f});
    s->bind(buffer, memory, 65536);
    if (f % 5 == 0) {
      s->object({id_of(f, kOrphan), "VkDeviceMemory", "orphan.memory", f, 4096, orphan_site,
                 format::Origin::kAllocated, f});
    }
    if (f % 10 == 0 && f + 10 <= now) {
      const uint64_t set = id_of(f, kSet);
      s->object({set, "VkDescriptorSet", "bindgroup." + std::to_string(f / 10), f, 0, set_site,
                 format::Origin::kAllocated, f + 9});
      s->edge({set, "descriptor", id_of(f, kView), "VkImageView"});
      s->destroyed(
          {id_of(f, kView), "VkImageView", "texture.view." + std::to_string(f / 10), f, f + 10});
    }
  }
}

SnapshotBuilder periodic(const Options& o, uint64_t k) {
  const uint64_t now = 30 * (k + 1);
  SnapshotBuilder s(o.pid, k, format::Reason::kFrame, now);
  if (!o.module.empty()) s.module_path(o.module);
  std::vector<int> sites(o.stacks);
  for (uint64_t c = 0; c < o.stacks; ++c) {
    if (o.offsets.empty()) {
      sites[c] = s.callsite(0x10000 + 0x1000 * c, 8);
    } else {  // distinct for c below the number of offsets
      std::vector<uint64_t> frames;
      for (uint64_t d = 0; d < 4; ++d)
        frames.push_back(o.offsets[(c + d * 7919) % o.offsets.size()]);
      sites[c] = s.callsite_at(frames);
    }
  }
  const int churn_site = s.callsite(0x4000000, 8);
  const int leak_site = s.callsite(0x5000000, 8);
  const int memory_site = s.callsite(0x5100000, 8);
  const int set_site = s.callsite(0x5200000, 8);
  const int orphan_site = s.callsite(0x5300000, 8);

  const uint64_t churn = o.objects / 5;
  const uint64_t steady = o.objects - churn;
  for (uint64_t i = 0; i < steady; ++i) {
    ObjectSpec spec{id_of(0, kStatic + i), kTypes[i % 10],     std::nullopt, 0,
                    (i % 4) * 4096,        sites[i % o.stacks]};
    if (i % 4 == 0) spec.name = "res." + std::to_string(i);
    if (i % 3 == 0) spec.last_use = now - 1 - i % 3;
    s.object(spec);
  }
  // New since the last snapshot, in use now; the previous ones were destroyed.
  for (uint64_t i = 0; i < churn; ++i) {
    s.object({id_of(now - 1, kChurn + i), "VkBuffer", "frame.transient", now - 1, 1024, churn_site,
              format::Origin::kCreated, now - 1});
  }
  if (!o.clean) {
    add_leaks(&s, now, leak_site, memory_site, set_site, orphan_site);
    if (k == 0) {
      EventSpec e;
      e.object = id_of(11, kEvent);
      e.name = "compute.bindings";
      e.frame = 11;
      e.submission_frame = 10;
      e.message = "VkDescriptorSet \"compute.bindings\" freed while in flight";
      s.event(e);
    }
  }
  return s;
}

bool parse(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> uint64_t {
      if (i + 1 >= argc) throw std::runtime_error(arg + " needs a value");
      return std::strtoull(argv[++i], nullptr, 10);
    };
    if (arg == "--objects") {
      o->objects = value();
    } else if (arg == "--snapshots") {
      o->snapshots = value();
    } else if (arg == "--pid") {
      o->pid = value();
    } else if (arg == "--clean") {
      o->clean = true;
    } else if (arg == "--teardown") {
      o->teardown = true;
    } else if (arg == "--stacks") {
      o->stacks = value();
      if (o->stacks == 0) throw std::runtime_error("--stacks must be at least 1");
    } else if (arg == "--module" && i + 1 < argc) {
      o->module = argv[++i];
    } else if (arg == "--offsets" && i + 1 < argc) {
      std::ifstream in(argv[++i]);
      std::string line;
      while (std::getline(in, line)) {
        if (!line.empty()) o->offsets.push_back(std::strtoull(line.c_str(), nullptr, 16));
      }
      if (o->offsets.empty()) throw std::runtime_error(std::string(argv[i]) + ": no offsets");
    } else if (o->out.empty() && arg[0] != '-') {
      o->out = arg;
    } else {
      return false;
    }
  }
  return !o->out.empty();
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  try {
    if (!parse(argc, argv, &o)) {
      std::fprintf(stderr,
                   "usage: %s OUT_DIR [--objects N] [--snapshots S] [--pid P] [--clean] "
                   "[--teardown] [--stacks N] [--module PATH --offsets FILE]\n",
                   argv[0]);
      return 2;
    }
    std::filesystem::create_directories(o.out);
    for (uint64_t k = 0; k < o.snapshots; ++k) periodic(o, k).write(o.out);
    if (o.teardown) {
      const uint64_t now = 30 * o.snapshots;
      SnapshotBuilder device(o.pid, o.snapshots, format::Reason::kDeviceDestroy, now);
      const int pool_site = device.callsite(0x6000000, 8);
      if (!o.clean) {
        int leak_sites[4];
        for (int& site : leak_sites)
          site = device.callsite(0x5000000 + 0x100000 * (&site - leak_sites), 8);
        add_leaks(&device, now, leak_sites[0], leak_sites[1], leak_sites[2], leak_sites[3]);
        device.object({id_of(0, kPool), "VkDescriptorPool", "bindgroup.pool", 0, 0, pool_site});
      }
      device.write(o.out);
      SnapshotBuilder(o.pid, o.snapshots + 1, format::Reason::kInstanceDestroy, now).write(o.out);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
