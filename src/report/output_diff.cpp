#include "report/output_diff.h"

#include "core/hex.h"
#include "shared/escape.h"

namespace vkleak::report {

using namespace analysis;  // the model it renders

namespace {

using nlohmann::json;

std::string signed_count(int64_t v) {
  if (v == 0) return "0";
  return (v > 0 ? "+" : "-") + format_count(magnitude(v));
}

std::string signed_bytes(int64_t v) {
  if (v == 0) return "0 B";
  if (v == INT64_MAX || v == INT64_MIN) return (v > 0 ? "+" : "-") + std::string(">= 8.0 EiB");
  return (v > 0 ? "+" : "-") + format_bytes(magnitude(v));
}

int64_t delta(const std::vector<uint64_t>& v) {
  return saturating_delta(v.front(), v.back());
}

std::string side_label(const DiffSide& s, char letter) {
  return std::string(1, letter) + ": " + printable(s.path) + " (pid " + std::to_string(s.pid) +
         ", " + printable(s.reason) + ", frame " + std::to_string(s.frame) + ", " +
         format_count(s.objects) + " objects)";
}

std::string group_title(const DiffRow& r) {
  std::string t = r.object_type;
  if (!r.name_pattern.empty()) t += " " + quote_printable(r.name_pattern, 60);
  return t;
}

json frame_list(const std::vector<Frame>& frames) {
  json out = json::array();
  for (const Frame& f : frames) out.push_back(f.text);
  return out;
}

}  // namespace

std::string render_diff_text(const DiffResult& d, const Style& style, size_t top) {
  std::string out;
  const char letters[] = {'A', 'B', 'C'};
  for (size_t k = 0; k < d.sides.size(); ++k) out += side_label(d.sides[k], letters[k]) + '\n';
  for (const std::string& note : d.notes) out += style.yellow("note: ") + note + '\n';
  if (d.same_process) {
    out += '\n' +
           style.bold(d.three ? "Born between A and B, still alive in C: "
                              : "Born after A, still alive in B: ") +
           format_count(d.born) + " objects, " + format_bytes(d.born_bytes) + '\n';
  }

  const size_t last = d.sides.size() - 1;
  out += '\n' + style.bold("By type") + '\n';
  Table types;
  types.add_column("TYPE", Table::Align::kLeft);
  for (size_t k = 0; k < d.sides.size(); ++k) {
    types.add_column(std::string("LIVE ") + letters[k], Table::Align::kRight);
  }
  types.add_column("DELTA", Table::Align::kRight);
  types.add_column(std::string("BYTES ") + letters[last], Table::Align::kRight);
  types.add_column("DELTA BYTES", Table::Align::kRight);
  for (const DiffRow& r : d.types) {
    std::vector<std::string> cells = {printable(r.object_type)};
    for (uint64_t v : r.live) cells.push_back(format_count(v));
    cells.push_back(signed_count(delta(r.live)));
    cells.push_back(format_bytes(r.bytes.back()));
    cells.push_back(signed_bytes(delta(r.bytes)));
    types.add_row(std::move(cells));
  }
  out += types.render(style, 2);

  const size_t shown = top == 0 ? d.groups.size() : std::min(top, d.groups.size());
  out += '\n' + style.bold("By creation call site") + " (" + format_count(d.groups.size()) +
         " changed" + (shown < d.groups.size() ? ", top " + format_count(shown) + " shown" : "") +
         ")\n";
  for (size_t i = 0; i < shown; ++i) {
    const DiffRow& r = d.groups[i];
    out += "\n  " + style.bold("#" + std::to_string(i + 1)) + "  " +
           style.bold(printable(group_title(r))) + "  live ";
    for (size_t k = 0; k < r.live.size(); ++k) out += (k ? " -> " : "") + format_count(r.live[k]);
    out += " (" + signed_count(delta(r.live)) + "), " + signed_bytes(delta(r.bytes));
    if (r.born > 0) {
      out += ", " +
             style.yellow(format_count(r.born) +
                          (d.three ? " born A..B alive in C" : " born after A")) +
             " (" + format_bytes(r.born_bytes) + ")";
    }
    out += '\n';
    if (r.callsite.empty()) {
      out += "      " + style.dim("(no call site recorded)") + '\n';
    } else {
      for (size_t f = 0; f < r.callsite.size(); ++f) {
        out += "      " +
               (f == 0 ? style.cyan(printable(r.callsite[f].text, kDisplayChars))
                       : printable(r.callsite[f].text, kDisplayChars)) +
               '\n';
      }
    }
    if (!r.names.empty()) {
      std::string names;
      for (const std::string& n : r.names)
        names += (names.empty() ? "" : ", ") + quote_printable(n, 60);
      if (r.names_omitted > 0) names += ", and " + format_count(r.names_omitted) + " more";
      out += "      names: " + names + '\n';
    }
    for (const ExampleObject& e : r.examples) {
      out += "      #" + std::to_string(e.id) + " " + format_hex(e.handle) +
             (e.name ? " " + quote_printable(*e.name, 60) : "") + ", created in frame " +
             std::to_string(e.frame) + '\n';
    }
  }
  if (shown < d.groups.size()) {
    out += "\n" + format_count(d.groups.size() - shown) +
           " more call sites not shown (--top 0 shows all)\n";
  }
  return out;
}

json diff_json(const DiffResult& d) {
  json sides = json::array();
  for (const DiffSide& s : d.sides) {
    sides.push_back({{"path", s.path},
                     {"pid", s.pid},
                     {"sequence", s.sequence},
                     {"reason", s.reason},
                     {"frame", s.frame},
                     {"objects", s.objects},
                     {"max_id", s.max_id}});
  }
  auto row_json = [](const DiffRow& r) {
    json examples = json::array();
    for (const ExampleObject& e : r.examples) {
      examples.push_back({{"id", e.id},
                          {"handle", format_hex(e.handle)},
                          {"name", e.name ? json(*e.name) : json(nullptr)},
                          {"frame", e.frame},
                          {"bytes", e.bytes}});
    }
    return json{{"object_type", r.object_type},
                {"name_pattern", r.name_pattern},
                {"callsite", frame_list(r.callsite)},
                {"names", r.names},
                {"names_omitted", r.names_omitted},
                {"live", r.live},
                {"bytes", r.bytes},
                {"delta_live", delta(r.live)},
                {"delta_bytes", delta(r.bytes)},
                {"born", r.born},
                {"born_bytes", r.born_bytes},
                {"examples", std::move(examples)}};
  };
  json types = json::array();
  for (const DiffRow& r : d.types) {
    types.push_back({{"type", r.object_type},
                     {"live", r.live},
                     {"bytes", r.bytes},
                     {"delta_live", delta(r.live)},
                     {"delta_bytes", delta(r.bytes)}});
  }
  json groups = json::array();
  for (const DiffRow& r : d.groups) groups.push_back(row_json(r));
  return {
      {"format", "vkleak-diff"},
      {"version", 1},
      {"mode", d.three ? "three" : "two"},
      {"snapshots", std::move(sides)},
      {"same_process", d.same_process},
      {"born", d.same_process ? json{{"count", d.born}, {"bytes", d.born_bytes}} : json(nullptr)},
      {"types", std::move(types)},
      {"groups", std::move(groups)},
      {"notes", d.notes}};
}

}  // namespace vkleak::report
