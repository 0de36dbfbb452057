#include "cli/cmd_show.h"

#include <unistd.h>

#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <vector>

#include "cli/report_options.h"
#include "core/hex.h"
#include "core/module_map.h"
#include "core/snapshot_reader.h"
#include "core/summary.h"
#include "core/symbolizer.h"
#include "shared/escape.h"
#include "shared/text.h"

namespace vkleak::cli {

CLI::App* add_show_command(CLI::App* app, ShowOptions* options) {
  CLI::App* show = app->add_subcommand(
      "show", "Show what one snapshot holds: objects by type and by creation call site");
  show->set_version_flag("--version", std::string("vkleak ") + VKLEAK_VERSION);
  show->add_option("snapshot", options->snapshot,
                   "Snapshot file (vkleak-<pid>-<seq>-<reason>.json)")
      ->required();
  add_format_option(show, &options->format);
  add_color_option(show, &options->color);
  show->add_option("--top", options->top,
                   "Call sites to show, most objects first (default 10; 0 shows all)")
      ->check(CLI::Range(int64_t{0}, int64_t{0x7fffffff}))
      ->option_text("N")
      ->default_str("10");
  show->add_flag("--no-symbolize", options->no_symbolize,
                 "Print call-site frames as module+offset without reading any binary");
  add_stack_module_option(show);
  add_debug_file_directory_option(show);
  add_startup_frames_option(show);
  return show;
}

namespace {

// Everything show prints, computed once for both formats.
struct CallsiteView {
  const CallsiteGroup* group;
  size_t skipped_frames = 0;  // frames in the Vulkan stack left out
  bool all_in_stack = false;  // every frame is in the Vulkan stack: all shown
  std::vector<const SymbolizedFrame*> frames;
  std::vector<const std::string*> inlined_into;  // by frame: the next frame's function, or null
};

struct ShowData {
  const Snapshot* snapshot;
  uint64_t bytes = 0;
  std::vector<TypeTotal> types;
  std::vector<CountMismatch> mismatches;
  std::vector<CallsiteGroup> groups;
  std::vector<CallsiteView> shown;  // the top N of groups
};

ShowData collect(const Snapshot& snapshot, const ShowOptions& options, Symbolizer* symbolizer) {
  ShowData data;
  data.snapshot = &snapshot;
  data.types = type_totals(snapshot);
  for (const TypeTotal& t : data.types) data.bytes = saturating_add(data.bytes, t.bytes);
  data.mismatches = check_counts(snapshot, data.types);
  data.groups = group_by_callsite(snapshot);
  const size_t limit = options.top == 0
                           ? data.groups.size()
                           : std::min(data.groups.size(), static_cast<size_t>(options.top));
  for (size_t i = 0; i < limit; ++i) {
    CallsiteView view;
    view.group = &data.groups[i];
    if (view.group->callsite != kNoCallsite) {
      const std::vector<uint64_t>& frames =
          snapshot.callsites[static_cast<size_t>(view.group->callsite)];
      const std::vector<size_t> kept =
          application_frames(frames, symbolizer->module_map(), &view.all_in_stack);
      view.skipped_frames = frames.size() - kept.size();
      for (size_t f : kept) {
        // Each address as its inline chain, innermost first.
        const std::vector<SymbolizedFrame>& chain = symbolizer->symbolize(frames[f]);
        for (size_t c = 0; c < chain.size(); ++c) {
          view.frames.push_back(&chain[c]);
          view.inlined_into.push_back(c + 1 < chain.size() ? &chain[c + 1].function : nullptr);
        }
      }
      // As report shows them: without the C runtime's start-up frames.
      trim_startup_frames(
          &view.frames, [](const SymbolizedFrame* f) -> const std::string& { return f->function; });
      view.inlined_into.resize(view.frames.size());
    }
    data.shown.push_back(std::move(view));
  }
  return data;
}

std::string plural(uint64_t n, const char* one, const char* many) {
  return format_count(n) + " " + (n == 1 ? one : many);
}

// Event counts by kind, in name order.
std::map<std::string, uint64_t> event_kinds(const Snapshot& s) {
  std::map<std::string, uint64_t> kinds;
  for (const Event& e : s.events) ++kinds[e.kind];
  return kinds;
}

std::string scope_text(const Snapshot& s) {
  if (s.scope_device) return "device " + std::to_string(*s.scope_device);
  if (s.scope_instance) return "instance " + std::to_string(*s.scope_instance);
  return "";
}

void print_text(const ShowData& data, const Style& style, std::ostream& out) {
  const Snapshot& s = *data.snapshot;
  auto field = [&](const char* name, const std::string& value) {
    out << style.bold(name) << std::string(11 - std::string(name).size(), ' ') << value << '\n';
  };
  field("snapshot", printable(s.path));
  std::string reason = printable(s.reason);
  if (const std::string scope = scope_text(s); !scope.empty()) reason += " (" + scope + ")";
  field("reason", reason);
  field("process", "pid " + std::to_string(s.pid) +
                       (s.executable.empty() ? "" : ", " + printable(s.executable)) +
                       ", snapshot #" + std::to_string(s.sequence));
  field(
      "frame",
      std::to_string(s.frame) +
          (s.frame_boundary.empty() ? "" : " (frames end at " + printable(s.frame_boundary) + ")"));
  if (frames_at_submits_auto(s)) field("note", style.yellow(kFramesAtSubmitsNote));
  field("time", format_duration_ms(s.time_ms) + " after the layer loaded");
  field("objects", format_count(s.objects.size()) + " live, " + format_bytes(data.bytes));
  if (!s.events.empty() || s.events_dropped > 0) {
    std::string events = plural(s.events.size(), "event", "events") + " since the last snapshot";
    std::string kinds;
    for (const auto& [kind, count] : event_kinds(s)) {
      kinds += (kinds.empty() ? "" : ", ") + format_count(count) + " " + printable(kind);
    }
    if (!kinds.empty()) events += " (" + kinds + ")";
    if (s.events_dropped > 0) events += ", " + format_count(s.events_dropped) + " more dropped";
    field("events", events);
  }
  if (s.degraded) {
    field("warning", style.yellow("tracking was degraded (out of memory): counts may be low"));
  }

  out << '\n' << style.bold("Objects by type") << '\n';
  if (data.types.empty()) {
    out << "  (none)\n";
  } else {
    Table table;
    table.add_column("TYPE", Table::Align::kLeft);
    table.add_column("LIVE", Table::Align::kRight);
    table.add_column("BYTES", Table::Align::kRight);
    for (const TypeTotal& t : data.types) {
      table.add_row({printable(t.type), format_count(t.live), format_bytes(t.bytes)});
    }
    table.add_footer({"total", format_count(s.objects.size()), format_bytes(data.bytes)});
    out << table.render(style, 2);
  }

  if (data.groups.empty()) return;
  out << '\n'
      << style.bold(
             data.shown.size() == data.groups.size()
                 ? plural(data.groups.size(), "creation call site", "creation call sites")
                 : "Top " + format_count(data.shown.size()) + " of " +
                       plural(data.groups.size(), "creation call site", "creation call sites"))
      << " by object count\n";
  for (size_t i = 0; i < data.shown.size(); ++i) {
    const CallsiteView& view = data.shown[i];
    const CallsiteGroup& g = *view.group;
    std::string types;
    for (const auto& [type, count] : g.types) {
      if (!types.empty()) types += ", ";
      types += printable(s.type_names[type]);
      if (g.types.size() > 1) types += " " + format_count(count);
    }
    out << '\n'
        << "  " << style.bold("#" + std::to_string(i + 1)) << "  "
        << style.bold(plural(g.count, "object", "objects")) << ", " << format_bytes(g.bytes) << ": "
        << types << '\n';
    if (!g.example_names.empty()) {
      std::string names;
      for (int32_t n : g.example_names) {
        if (!names.empty()) names += ", ";
        names += quote_printable(s.names[static_cast<size_t>(n)], 60);
      }
      out << "      names: " << names << '\n';
    }
    if (g.callsite == kNoCallsite) {
      out << "      " << style.dim("(no call site recorded)") << '\n';
      continue;
    }
    if (view.frames.empty()) out << "      " << style.dim("(no frames recorded)") << '\n';
    for (size_t f = 0; f < view.frames.size(); ++f) {
      const std::string text =
          display_cut(view.frames[f]->to_string() + (view.frames[f]->inlined ? " (inlined)" : ""));
      out << "      " << (f == 0 ? style.cyan(text) : text) << '\n';
    }
    if (view.skipped_frames > 0) {
      out << "      "
          << style.dim("(" + plural(view.skipped_frames, "frame", "frames") +
                       " in the Vulkan stack not shown: loader, layers, drivers, "
                       "translation libraries)")
          << '\n';
    }
    if (view.all_in_stack) {
      out << "      "
          << style.dim(
                 "(every frame is in the Vulkan stack: --callstack-depth or "
                 "--stack-module may reach the program's own)")
          << '\n';
    }
  }
  const size_t hidden = data.groups.size() - data.shown.size();
  if (hidden > 0) {
    out << '\n'
        << plural(hidden, "more call site", "more call sites")
        << " not shown (--top 0 shows all)\n";
  }
}

nlohmann::json frame_json(const SymbolizedFrame& f, const std::string* inlined_into,
                          const Snapshot& s) {
  nlohmann::json j;
  j["address"] = format_hex(f.address);
  j["module"] = f.module >= 0 ? nlohmann::json(s.modules[static_cast<size_t>(f.module)].path)
                              : nlohmann::json(nullptr);
  j["offset"] = f.module >= 0 ? nlohmann::json(format_hex(f.offset)) : nlohmann::json(nullptr);
  j["function"] = f.function.empty() ? nlohmann::json(nullptr) : nlohmann::json(f.function);
  j["inlined"] = f.inlined;
  j["inlined_into"] = inlined_into == nullptr || inlined_into->empty()
                          ? nlohmann::json(nullptr)
                          : nlohmann::json(*inlined_into);
  j["file"] = f.file.empty() ? nlohmann::json(nullptr) : nlohmann::json(f.file);
  j["line"] = f.file.empty() ? nlohmann::json(nullptr) : nlohmann::json(f.line);
  j["note"] = f.note.empty() ? nlohmann::json(nullptr) : nlohmann::json(f.note);
  j["text"] = f.to_string();
  return j;
}

nlohmann::json to_json(const ShowData& data) {
  const Snapshot& s = *data.snapshot;
  nlohmann::json scope = nullptr;
  if (s.scope_device) scope = {{"device", *s.scope_device}};
  if (s.scope_instance) scope = {{"instance", *s.scope_instance}};
  nlohmann::json j = {
      {"format", "vkleak-show"},
      {"version", 1},
      {"snapshot",
       {{"path", s.path},
        {"version", s.version},
        {"producer", {{"name", s.producer_name}, {"version", s.producer_version}}},
        {"pid", s.pid},
        {"sequence", s.sequence},
        {"executable",
         s.executable.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.executable)},
        {"reason", s.reason},
        {"scope", scope},
        {"frame", s.frame},
        {"frame_boundary",
         s.frame_boundary.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.frame_boundary)},
        {"frames_at_submits_auto", frames_at_submits_auto(s)},
        {"time_ms", s.time_ms},
        {"degraded", s.degraded}}},
      {"objects", s.objects.size()},
      {"bytes", data.bytes},
      {"events", event_kinds(s)},
      {"events_dropped", s.events_dropped},
  };
  nlohmann::json& types = j["types"] = nlohmann::json::array();
  for (const TypeTotal& t : data.types) {
    types.push_back({{"type", t.type}, {"live", t.live}, {"bytes", t.bytes}});
  }
  nlohmann::json& mismatches = j["count_mismatches"] = nlohmann::json::array();
  for (const CountMismatch& m : data.mismatches) {
    mismatches.push_back({{"type", m.type},
                          {"objects", {{"live", m.objects.live}, {"bytes", m.objects.bytes}}},
                          {"counts", {{"live", m.declared.live}, {"bytes", m.declared.bytes}}}});
  }
  j["callsites_total"] = data.groups.size();
  j["callsites_not_shown"] = data.groups.size() - data.shown.size();
  nlohmann::json& sites = j["callsites"] = nlohmann::json::array();
  for (const CallsiteView& view : data.shown) {
    const CallsiteGroup& g = *view.group;
    nlohmann::json site;
    site["callsite"] =
        g.callsite == kNoCallsite ? nlohmann::json(nullptr) : nlohmann::json(g.callsite);
    site["count"] = g.count;
    site["bytes"] = g.bytes;
    nlohmann::json& site_types = site["types"] = nlohmann::json::array();
    for (const auto& [type, count] : g.types) {
      site_types.push_back({{"type", s.type_names[type]}, {"count", count}});
    }
    nlohmann::json& names = site["example_names"] = nlohmann::json::array();
    for (int32_t n : g.example_names) names.push_back(s.names[static_cast<size_t>(n)]);
    site["skipped_frames"] = view.skipped_frames;
    site["all_in_vulkan_stack"] = view.all_in_stack;
    nlohmann::json& frames = site["frames"] = nlohmann::json::array();
    for (size_t f = 0; f < view.frames.size(); ++f)
      frames.push_back(frame_json(*view.frames[f], view.inlined_into[f], s));
    sites.push_back(std::move(site));
  }
  return j;
}

}  // namespace

int show_command(const ShowOptions& options) {
  Snapshot snapshot;
  try {
    snapshot = read_snapshot(options.snapshot);
  } catch (const SnapshotError& e) {
    print_error(e.what());
    return kExitUsage;
  }
  Symbolizer symbolizer(snapshot.modules, SymbolizerOptions{!options.no_symbolize});
  const ShowData data = collect(snapshot, options, &symbolizer);

  for (const CountMismatch& m : data.mismatches) {
    print_warning(printable(snapshot.path) + ": \"counts\" says " + printable(m.type) + " has " +
                  format_count(m.declared.live) + " live (" + format_bytes(m.declared.bytes) +
                  ") but the objects add up to " + format_count(m.objects.live) + " (" +
                  format_bytes(m.objects.bytes) + ")");
  }
  if (options.format == OutputFormat::kJson) {
    // Symbol names come from binaries and may not be UTF-8: replace rather than throw.
    std::cout << to_json(data).dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
              << '\n';
  } else {
    print_text(data, Style(should_color(options.color, STDOUT_FILENO)), std::cout);
  }
  std::cout.flush();
  return std::cout ? kExitOk : kExitUsage;
}

}  // namespace vkleak::cli
