// Creation call sites across snapshots, by identity: the symbolized path (each frame's module,
// function, file, line and inline chain; module + offset where there are no symbols), so that
// the same call site in two snapshots (or two runs of one binary, whatever the load addresses)
// is one id, and so are return addresses the compiler made of one source line (an unrolled
// loop, a duplicated tail). Each new chain of addresses is symbolized once, with the modules of
// the process that recorded it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analysis/finding.h"
#include "core/snapshot.h"
#include "core/symbolizer.h"

namespace vkleak::analysis {

inline constexpr uint32_t kNoCallsiteId = UINT32_MAX;

class CallsiteTable {
 public:
  explicit CallsiteTable(bool symbolize = true) : symbolize_(symbolize) {}

  // Ids for the snapshot's call sites: result[i] is the id of snapshot.callsites[i].
  std::vector<uint32_t> add_snapshot(const Snapshot& snapshot);

  size_t size() const { return entries_.size(); }

  // The frames of call site id, innermost application frame first, each address expanded into
  // its inline chain (Frame::inlined): those in the Vulkan stack
  // (loader, layers, drivers, translation libraries: shared/vulkan_stack.h) left out, unless every
  // frame is there (then all, each text marked "[Vulkan stack]"). Empty for kNoCallsiteId.
  const std::vector<Frame>& frames(uint32_t id);

  // Modules of the frames symbolized so far that have frames without a function name, each with
  // a sentence that says so and why: the symbolizer's reason for the whole module ("file not
  // found", "build-id mismatch"), no symbols at all, or only some frames (a stripped build
  // whose exported functions still have names). Frames not shown (start-up code) do not count.
  std::map<std::string, std::string> modules_without_symbols() const;

 private:
  struct Entry {
    std::vector<uint64_t> addresses;  // outside the Vulkan stack, unless all_in_stack
    uint64_t pid = 0;
    bool all_in_stack = false;
    bool symbolized = false;
    std::vector<Frame> frames;
    // Its frames counted in modules_ (done when frames() is asked for: symbolizing every call
    // site to group them must not note every module).
    bool counted = false;
  };
  struct Process {
    std::vector<Module> modules;
    std::unique_ptr<Symbolizer> symbolizer;  // made on first use
  };

  void symbolize(Entry* entry);

  bool symbolize_;
  std::unordered_map<std::string, uint32_t> by_key_;   // module+offset chain -> id
  std::unordered_map<std::string, uint32_t> by_path_;  // symbolized path -> id
  std::vector<Entry> entries_;
  std::map<uint64_t, Process> processes_;  // by pid
  struct ModuleSymbols {
    uint64_t frames = 0;         // frames shown from this module
    uint64_t with_function = 0;  // of them, with a function name
    std::string note;            // the symbolizer's reason for the whole module, if any
  };
  std::map<std::string, ModuleSymbols> modules_;  // by module file name
};

}  // namespace vkleak::analysis
