#include "analysis/callsites.h"

#include <algorithm>
#include <set>
#include <string_view>
#include <utility>

#include "core/hex.h"
#include "core/module_map.h"
#include "shared/escape.h"
#include "shared/text.h"
#include "shared/vulkan_stack.h"

namespace vkleak::analysis {

std::vector<uint32_t> CallsiteTable::add_snapshot(const Snapshot& snapshot) {
  Process& process = processes_[snapshot.pid];
  // Modules only get added during a run: keep the union, so every address finds its module.
  std::set<std::pair<std::string, uint64_t>> known;
  for (const Module& m : process.modules) known.emplace(m.path, m.base);
  for (const Module& m : snapshot.modules) {
    if (known.emplace(m.path, m.base).second) {
      process.modules.push_back(m);
      process.symbolizer.reset();
    }
  }

  const ModuleMap map(snapshot.modules);
  std::vector<uint32_t> ids;
  ids.reserve(snapshot.callsites.size());
  std::string key;
  for (const std::vector<uint64_t>& recorded : snapshot.callsites) {
    // Chains that differ only inside the Vulkan stack (driver, GL on zink, a layer) are one call
    // site of the program: it groups, matches baselines and suppressions by its own frames.
    bool all_in_stack = false;
    std::vector<uint64_t> addresses;
    std::vector<size_t> kept = application_frames(recorded, map, &all_in_stack);
    if (!all_in_stack && kept.size() < recorded.size() &&
        std::all_of(kept.begin(), kept.end(), [&](size_t i) {
          const int m = map.find(recorded[i]);
          return m >= 0 && is_thread_start_module(snapshot.modules[static_cast<size_t>(m)].path);
        })) {
      // A thread the Vulkan stack started (zink's own): below the stack only libc's thread
      // start, which says nothing. The stack is shown, so the library that made it is named,
      // without the loader's and layers' plumbing above it.
      all_in_stack = true;
      kept.clear();
      for (size_t i = 0; i < recorded.size(); ++i) {
        const int m = map.find(recorded[i]);
        if (m < 0 ||
            !is_vulkan_loader_or_layer_module(snapshot.modules[static_cast<size_t>(m)].path))
          kept.push_back(i);
      }
    }
    for (size_t i : kept) addresses.push_back(recorded[i]);
    key.clear();
    if (all_in_stack) key += "stack:";
    for (uint64_t address : addresses) {
      const int m = map.find(address);
      if (m >= 0) {
        const Module& module = snapshot.modules[static_cast<size_t>(m)];
        key += base_name(module.path);
        key += '+';
        key += format_hex(address - module.bias);
      } else {
        key += format_hex(address);
      }
      key += ';';
    }
    auto [it, added] = by_key_.try_emplace(key, kNoCallsiteId);
    if (added) {
      // A new chain of addresses: symbolized now, and one id with every chain that symbolizes
      // to the same path (a loop the compiler unrolled is five return addresses on one line).
      Entry entry{std::move(addresses), snapshot.pid, all_in_stack, false, {}, {}};
      symbolize(&entry);
      std::string path = all_in_stack ? "stack:" : "";
      for (const Frame& frame : entry.frames) {
        if (!frame.function.empty() && !frame.file.empty() && frame.line > 0) {
          path += frame.module + '|' + frame.function + '|' + frame.file + ':' +
                  std::to_string(frame.line) + (frame.inlined ? "|i" : "");
        } else {
          path += frame.text;  // module+offset: nothing better to tell frames apart
        }
        path += ';';
      }
      auto [at, fresh] = by_path_.try_emplace(path, static_cast<uint32_t>(entries_.size()));
      if (fresh) entries_.push_back(std::move(entry));
      it->second = at->second;
    }
    ids.push_back(it->second);
  }
  return ids;
}

const std::vector<Frame>& CallsiteTable::frames(uint32_t id) {
  static const std::vector<Frame> kNone;
  if (id >= entries_.size()) return kNone;
  Entry& entry = entries_[id];
  symbolize(&entry);
  // Only the call sites something is reported about count toward the note that a module has no
  // symbols (every call site is symbolized to group them).
  if (!entry.counted) {
    entry.counted = true;
    for (Frame& frame : entry.frames) {
      if (frame.module.empty()) continue;
      ModuleSymbols& m = modules_[frame.module];
      ++m.frames;
      if (!frame.function.empty()) ++m.with_function;
      if (!frame.note.empty() && frame.note != "no symbols") m.note = frame.note;
      frame.note.clear();
    }
  }
  return entry.frames;
}

void CallsiteTable::symbolize(Entry* entry) {
  if (entry->symbolized) return;
  entry->symbolized = true;
  Process& process = processes_[entry->pid];
  if (!process.symbolizer) {
    process.symbolizer =
        std::make_unique<Symbolizer>(process.modules, SymbolizerOptions{symbolize_});
  }
  Symbolizer& symbolizer = *process.symbolizer;
  for (uint64_t address : entry->addresses) {
    for (const SymbolizedFrame& f : symbolizer.symbolize(address)) {
      Frame frame;
      frame.text = f.to_string();
      if (f.inlined) frame.text += " (inlined)";
      // Shown because nothing else was recorded: say the frame is not the program's own.
      if (entry->all_in_stack) frame.text += " [Vulkan stack]";
      frame.function = f.function;
      frame.file = f.file;
      frame.line = f.line;
      frame.module = f.module_name;
      frame.inlined = f.inlined;
      frame.note = f.note;
      entry->frames.push_back(std::move(frame));
    }
  }
  // One place for every output: the C runtime's start-up frames are not shown.
  trim_startup_frames(&entry->frames,
                      [](const Frame& f) -> const std::string& { return f.function; });
}

std::map<std::string, std::string> CallsiteTable::modules_without_symbols() const {
  std::map<std::string, std::string> out;
  if (!symbolize_) return out;  // module+offset was asked for, not a lack of symbols
  for (const auto& [name, m] : modules_) {
    const std::string module = display_cut(name);
    if (!m.note.empty()) {
      out.emplace(name, "call sites in " + module + " are module+offset: " + m.note);
    } else if (m.with_function == 0) {
      out.emplace(name, "call sites in " + module + " are module+offset: no symbols");
    } else if (m.with_function < m.frames) {
      // Exported names resolve, the rest of a stripped build does not.
      out.emplace(name, format_count(m.frames - m.with_function) + " of " + format_count(m.frames) +
                            " frames in " + module +
                            " are module+offset: only its exported functions have names");
    }
  }
  return out;
}

}  // namespace vkleak::analysis
