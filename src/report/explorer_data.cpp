#include "report/explorer_data.h"

#include <charconv>
#include <string_view>
#include <unordered_map>

#include "report/output.h"
#include "shared/escape.h"

namespace vkleak::report {

using namespace analysis;  // the model it renders

namespace {

// Interns strings: each distinct one gets the next index.
class StringTable {
 public:
  int64_t id(const std::string& s) {
    auto [it, added] = ids_.try_emplace(s, static_cast<int64_t>(list_.size()));
    if (added) list_.push_back(s);
    return it->second;
  }
  const std::vector<std::string>& list() const { return list_; }

 private:
  std::unordered_map<std::string, int64_t> ids_;
  std::vector<std::string> list_;
};

// Interns rows of integers (frames, stacks).
class RowTable {
 public:
  int64_t id(const std::vector<int64_t>& row) {
    auto [it, added] = ids_.try_emplace(key(row), static_cast<int64_t>(rows_.size()));
    if (added) rows_.push_back(row);
    return it->second;
  }
  const std::vector<std::vector<int64_t>>& rows() const { return rows_; }

 private:
  static std::string key(const std::vector<int64_t>& row) {
    return std::string(reinterpret_cast<const char*>(row.data()), row.size() * sizeof(int64_t));
  }
  std::unordered_map<std::string, int64_t> ids_;
  std::vector<std::vector<int64_t>> rows_;
};

void append_int(std::string* out, uint64_t v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof(buf), v);
  out->append(buf, r.ptr);
}

void append_int(std::string* out, int64_t v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof(buf), v);
  out->append(buf, r.ptr);
}

void append_rows(std::string* out, const std::vector<std::vector<int64_t>>& rows) {
  *out += '[';
  for (size_t i = 0; i < rows.size(); ++i) {
    if (i > 0) *out += ',';
    *out += '[';
    for (size_t k = 0; k < rows[i].size(); ++k) {
      if (k > 0) *out += ',';
      append_int(out, rows[i][k]);
    }
    *out += ']';
  }
  *out += ']';
}

void append_strings(std::string* out, const std::vector<std::string>& strings) {
  *out += '[';
  for (size_t i = 0; i < strings.size(); ++i) {
    if (i > 0) *out += ',';
    *out += dump_json(strings[i]);
  }
  *out += ']';
}

}  // namespace

std::string explorer_data_json(const RunReport& run) {
  const RunLifetimes& lt = run.lifetimes;
  StringTable types, strings;
  RowTable frames, stacks, paths;
  // type, stack, path; the pattern is written apart
  std::vector<std::vector<int64_t>> groups;
  groups.reserve(lt.groups.size());
  for (const LifetimeGroup& g : lt.groups) {
    int64_t stack = -1, path = -1;
    if (!g.callsite.empty()) {
      std::vector<int64_t> ids, functions;
      ids.reserve(g.callsite.size());
      functions.reserve(g.callsite.size());
      // Outermost first: the flame graph's order.
      for (auto f = g.callsite.rbegin(); f != g.callsite.rend(); ++f) {
        // An unknown function reads as its module+offset text.
        const std::string& function = f->function.empty() ? f->text : f->function;
        functions.push_back(function.empty() ? -1 : strings.id(function));
        ids.push_back(frames.id({functions.back(), f->file.empty() ? -1 : strings.id(f->file),
                                 f->line, f->inlined ? 1 : 0}));
      }
      stack = stacks.id(ids);
      // The call-site path: the stack's functions without their lines, the one key the page
      // groups, labels and finds call sites by (CONTRACT.md).
      path = paths.id(functions);
    }
    groups.push_back({types.id(g.object_type), stack, path});
  }

  std::string out;
  out.reserve(4096 + lt.cells.size() * 32);
  out += "{\"version\":";
  append_int(&out, int64_t{kExplorerDataVersion});
  out += ",\"snapshots\":";
  nlohmann::json snaps = nlohmann::json::array();
  for (const LifetimeSnapshot& s : lt.snapshots) {
    snaps.push_back({{"sequence", s.sequence},
                     {"frame", s.frame},
                     {"time_ms", s.time_ms},
                     {"reason", s.reason},
                     {"label", s.label ? nlohmann::json(*s.label) : nlohmann::json(nullptr)}});
  }
  out += dump_json(snaps);
  out += ",\"types\":";
  append_strings(&out, types.list());
  out += ",\"strings\":";
  append_strings(&out, strings.list());
  out += ",\"frames\":";
  append_rows(&out, frames.rows());
  out += ",\"stacks\":";
  append_rows(&out, stacks.rows());
  out += ",\"paths\":";
  append_rows(&out, paths.rows());
  out += ",\"groups\":[";
  for (size_t i = 0; i < groups.size(); ++i) {
    if (i > 0) out += ',';
    out += '[';
    append_int(&out, groups[i][0]);
    out += ',';
    append_int(&out, groups[i][1]);
    out += ',';
    // Cut as the page shows names: a hostile name must not grow the page by its size.
    out += dump_json(display_cut(lt.groups[i].name_pattern));
    out += lt.groups[i].attached ? ",1," : ",0,";
    append_int(&out, groups[i][2]);
    out += ']';
  }
  out += "],\"cells\":[";
  for (size_t i = 0; i < lt.cells.size(); ++i) {
    const LifetimeCell& c = lt.cells[i];
    if (i > 0) out += ',';
    append_int(&out, uint64_t{c.group});
    out += ',';
    append_int(&out, uint64_t{c.first});
    out += ',';
    append_int(&out, uint64_t{c.last});
    out += ',';
    append_int(&out, c.count);
    out += ',';
    append_int(&out, c.bytes);
  }
  out += "],\"omitted\":{\"cells\":";
  append_int(&out, lt.cells_omitted);
  out += ",\"objects\":";
  append_int(&out, lt.objects_omitted);
  out += ",\"bytes\":";
  append_int(&out, lt.bytes_omitted);
  out += "},\"findings\":";
  nlohmann::json findings = nlohmann::json::array();
  for (size_t i = 0; i < run.findings.size(); ++i) {
    const Finding& f = run.findings[i];
    findings.push_back(
        {{"rank", i + 1},
         {"problem", f.problem},
         {"kind", kind_name(f.kind)},
         {"group", f.lifetime_group ? static_cast<int64_t>(*f.lifetime_group) : int64_t{-1}},
         {"count", f.count},
         {"bytes", f.bytes}});
  }
  out += dump_json(findings);
  out += '}';

  // '<' only occurs inside strings, where \u003c means the same: the element cannot be ended.
  std::string safe;
  safe.reserve(out.size() + 64);
  for (char c : out) {
    if (c == '<') {
      safe += "\\u003c";
    } else {
      safe += c;
    }
  }
  return safe;
}

std::string explorer_data_element(const ReportDocument& doc) {
  if (doc.runs.empty()) return "";
  return "<script type=\"application/json\" id=\"vkleak-explorer-data\">" +
         explorer_data_json(doc.runs.front()) + "</script>\n";
}

}  // namespace vkleak::report
