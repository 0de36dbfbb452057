// The HTML explorer at scale (issue 18): feeds RunAnalyzer a run of snapshots built in memory
// (no files, no parser: the analysis and the page alone) that reaches a million live objects,
// then renders the HTML page. Prints the page's size (and the embedded explorer data's), the
// time of each step and the peak RSS. The run: a few hundred groups (type + call site) of
//   - long-lived objects, alive from the first snapshot to the last (images with their own
//     memory among them),
//   - leaks: groups growing every snapshot and still alive at a final device_destroy,
//   - churn: objects that live 1 to --max-life snapshots and are replaced.
//
//   vkleak_explorer_bench [--objects 1000000] [--snapshots 100] [--groups 300] [--max-life 8]
//                         [--out page.html]
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "analysis/analyzer.h"
#include "format/snapshot_format.h"
#include "report/explorer_data.h"
#include "report/html_report.h"

namespace {

using namespace vkleak;
using Clock = std::chrono::steady_clock;

constexpr uint64_t kPid = 4242;
constexpr int64_t kDevice = 2;
constexpr uint64_t kModuleBase = 0x555500000000;
const char* const kTypes[] = {"VkBuffer",      "VkImage",         "VkImageView", "VkDescriptorSet",
                              "VkSampler",     "VkFramebuffer",   "VkFence",     "VkSemaphore",
                              "VkCommandPool", "VkPipelineLayout"};
constexpr size_t kImageType = 1;

struct Params {
  uint64_t objects = 1000000;
  uint32_t snapshots = 100;
  uint32_t groups = 300;
  uint32_t max_life = 8;
  std::string out;
};

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

class RunMaker {
 public:
  explicit RunMaker(const Params& p) : p_(p) {
    statics_ = p.objects * 4 / 10;
    leak_per_snapshot_ = p.objects * 3 / 10 / p.snapshots;
    churn_ = p.objects - statics_ - leak_per_snapshot_ * p.snapshots;
    static_groups_ = p.groups * 2 / 3;
    leak_groups_ = std::max<uint32_t>(p.groups / 15, 1);
    churn_groups_ = p.groups - static_groups_ - leak_groups_;
  }

  // Snapshot k of the run; teardown: the device_destroy after the last, with the leaks only.
  Snapshot make(uint32_t k, bool teardown) {
    Snapshot s;
    s.version = 2;
    s.pid = kPid;
    s.sequence = k;
    s.executable = "/opt/app/bin/app";
    s.reason = std::string(
        format::name(teardown ? format::Reason::kDeviceDestroy : format::Reason::kFrame));
    if (teardown) s.scope_device = kDevice;
    s.frame = 30 * (k + 1);
    s.time_ms = 500 * (k + 1);
    s.frame_boundary = "present";
    Device d;
    d.id = kDevice;
    d.frame = s.frame;
    d.presents = s.frame;
    d.frame_boundary = "present";
    s.devices.push_back(d);
    s.modules.push_back(Module{"/opt/app/bin/app", kModuleBase, 0x1000000, kModuleBase, ""});
    for (const char* t : kTypes) s.type_names.emplace_back(t);
    s.type_names.emplace_back("VkDeviceMemory");
    s.edge_kinds.emplace_back(format::kEdgeKindMemory);
    // One call site per group: main > run > subsystem > group's function (innermost first).
    for (uint32_t g = 0; g < p_.groups; ++g) {
      s.callsites.push_back({kModuleBase + 0x10000 + 0x40 * g,
                             kModuleBase + 0x8000 + 0x40 * (g % 12), kModuleBase + 0x4000,
                             kModuleBase + 0x1000});
    }
    const uint16_t memory_type = static_cast<uint16_t>(std::size(kTypes));
    s.objects.reserve(p_.objects + p_.objects / 20);

    const auto add = [&](uint64_t id, uint32_t group, uint64_t created, bool named) {
      Object o;
      o.id = id;
      o.handle = id * 16;
      o.owner = kDevice;
      o.type = static_cast<uint16_t>(group % std::size(kTypes));
      o.size = uint64_t{256} << (group % 10);
      o.frame = static_cast<uint32_t>(30 * (created + 1));
      o.callsite = static_cast<int32_t>(group);
      if (named) {
        o.name = static_cast<int32_t>(s.names.size());
        s.names.push_back("g" + std::to_string(group) + ".obj." + std::to_string(id));
      }
      s.objects.push_back(o);
      return s.objects.size() - 1;
    };

    if (!teardown) {
      // Long-lived: images get memory of their own (which goes with them in every count).
      for (uint64_t i = 0; i < statics_; ++i) {
        const auto group = static_cast<uint32_t>(i % static_groups_);
        const size_t at = add(100 + i, group, 0, (i / static_groups_) % 10 == 0);
        if (group % std::size(kTypes) == kImageType && (i / static_groups_) % 2 == 0) {
          Object m;
          m.id = 100'000'000 + i;
          m.handle = m.id * 16;
          m.owner = kDevice;
          m.type = memory_type;
          m.size = uint64_t{1} << 20;
          m.origin = Origin::kAllocated;
          s.objects.push_back(m);
          Edge e;
          e.from = static_cast<uint32_t>(at);
          e.kind = 0;
          e.type = memory_type;
          e.to = static_cast<int64_t>(m.id);
          e.size = m.size;
          s.edges.push_back(e);
        }
      }
      // Churn: slot j holds one object at a time, replaced every life(j) snapshots.
      for (uint64_t j = 0; j < churn_; ++j) {
        const uint64_t life = 1 + (j * 2654435761u >> 7) % p_.max_life;
        const uint64_t gen = (k + j % life) / life;
        const auto group = static_cast<uint32_t>(static_groups_ + leak_groups_ + j % churn_groups_);
        add(200'000'000 + gen * churn_ + j, group, k, (j / churn_groups_) % 10 == 0);
      }
    }
    // Leaks: leak_per_snapshot_ more every snapshot, never freed.
    const uint64_t leaked = leak_per_snapshot_ * (std::min(k, p_.snapshots - 1) + 1);
    for (uint64_t i = 0; i < leaked; ++i) {
      const auto group = static_cast<uint32_t>(static_groups_ + i % leak_groups_);
      add(1'000'000'000 + i, group, i / leak_per_snapshot_, (i / leak_groups_) % 10 == 0);
    }
    return s;
  }

 private:
  Params p_;
  uint64_t statics_, leak_per_snapshot_, churn_;
  uint32_t static_groups_, leak_groups_, churn_groups_;
};

bool arg(int argc, char** argv, int* i, const char* name, std::string* value) {
  if (std::strcmp(argv[*i], name) != 0 || *i + 1 >= argc) return false;
  *value = argv[++*i];
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Params p;
  for (int i = 1; i < argc; ++i) {
    std::string v;
    if (arg(argc, argv, &i, "--objects", &v)) {
      p.objects = std::stoull(v);
    } else if (arg(argc, argv, &i, "--snapshots", &v)) {
      p.snapshots = static_cast<uint32_t>(std::stoul(v));
    } else if (arg(argc, argv, &i, "--groups", &v)) {
      p.groups = static_cast<uint32_t>(std::stoul(v));
    } else if (arg(argc, argv, &i, "--max-life", &v)) {
      p.max_life = static_cast<uint32_t>(std::stoul(v));
    } else if (arg(argc, argv, &i, "--out", &v)) {
      p.out = v;
    } else {
      std::fprintf(stderr,
                   "usage: %s [--objects N] [--snapshots N] [--groups N] "
                   "[--max-life N] [--out page.html]\n",
                   argv[0]);
      return 2;
    }
  }
  if (p.snapshots < 2 || p.groups < 30 || p.max_life < 1) {
    std::fprintf(stderr, "need --snapshots >= 2, --groups >= 30, --max-life >= 1\n");
    return 2;
  }

  analysis::AnalysisOptions options;
  options.symbolize = false;  // the module does not exist: frames are module+offset
  analysis::RunAnalyzer analyzer(options);
  RunMaker maker(p);
  double make_s = 0, add_s = 0;
  size_t last_objects = 0;
  for (uint32_t k = 0; k <= p.snapshots; ++k) {
    auto t = Clock::now();
    Snapshot s = maker.make(k, k == p.snapshots);
    make_s += seconds_since(t);
    if (k + 1 == p.snapshots) last_objects = s.objects.size();
    t = Clock::now();
    analyzer.add(std::move(s));
    add_s += seconds_since(t);
  }
  auto t = Clock::now();
  analysis::ReportDocument doc;
  doc.runs.push_back(analyzer.finish());
  const double finish_s = seconds_since(t);
  t = Clock::now();
  const std::string page = report::render_html(doc);
  const double render_s = seconds_since(t);
  const std::string data = report::explorer_data_json(doc.runs.front());
  if (!p.out.empty()) std::ofstream(p.out, std::ios::binary) << page;

  const analysis::RunLifetimes& lt = doc.runs.front().lifetimes;
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf(
      "run: %u snapshots (+1 device_destroy), %zu objects in the last, %u groups, "
      "churn lives 1-%u snapshots\n",
      p.snapshots, last_objects, p.groups, p.max_life);
  std::printf("lifetimes: %zu snapshots, %zu groups, %zu cells (%llu omitted), %zu findings\n",
              lt.snapshots.size(), lt.groups.size(), lt.cells.size(),
              static_cast<unsigned long long>(lt.cells_omitted), doc.runs.front().findings.size());
  std::printf("page: %.2f MB (explorer data %.2f MB); limit 20 MB: %s\n", page.size() / 1e6,
              data.size() / 1e6, page.size() <= 20'000'000 ? "within" : "OVER");
  std::printf(
      "time: make snapshots %.1f s, RunAnalyzer::add %.1f s, finish %.2f s, "
      "render_html %.3f s\n",
      make_s, add_s, finish_s, render_s);
  std::printf("peak RSS: %.0f MiB\n", usage.ru_maxrss / 1024.0);
  return page.size() <= 20'000'000 ? 0 : 1;
}
