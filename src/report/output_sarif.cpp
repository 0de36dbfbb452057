// SARIF 2.1.0 (OASIS), the format code-scanning services read: one rule per finding kind, one
// result per problem (findings about the same objects; its best-ranked finding's kind is the
// rule, all its kinds are listed), located at the innermost source line of the creation call
// site that tells it apart from the other problems (the caller, not a helper they share).
#include <algorithm>
#include <cstdio>

#include "analysis/problems.h"
#include "analysis/vuids.h"
#include "report/output.h"
#include "shared/escape.h"

namespace vkleak::report {

using namespace analysis;  // the model it renders

namespace {

using nlohmann::json;

// FNV-1a: a fingerprint that stays the same across builds and platforms (std::hash does not).
std::string stable_hash(const std::string& text) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

// RFC 3986 path characters as they are, everything else percent-encoded.
std::string uri_path(const std::string& path) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : path) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '/' ||
        c == '-' || c == '_' || c == '.' || c == '~' || c == '+') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

// GitHub renders SARIF text: names as the other reports show them (bidi controls visible, cut).
json display_names(const std::vector<std::string>& names) {
  json out = json::array();
  for (const std::string& n : names) out.push_back(printable(n, kDisplayChars));
  return out;
}

std::string with_slash(std::string dir) {
  if (dir.empty() || dir.back() != '/') dir += '/';
  return dir;
}

json artifact(const std::string& file, const std::string& root) {
  if (!root.empty() && file.rfind(root, 0) == 0) {
    return {{"uri", uri_path(file.substr(root.size()))}, {"uriBaseId", "SRCROOT"}};
  }
  if (!file.empty() && file[0] == '/') return {{"uri", "file://" + uri_path(file)}};
  return {{"uri", uri_path(file)}, {"uriBaseId", "SRCROOT"}};
}

// A stack's frames (§3.52), innermost first, each with its source line where there is one.
json sarif_frames(const std::vector<Frame>& stack, const std::string& root) {
  json frames = json::array();
  for (const Frame& frame : stack) {
    json location = {{"message", {{"text", printable(frame.text, kDisplayChars)}}}};
    if (!frame.file.empty() && frame.line > 0) {
      location["physicalLocation"] = {{"artifactLocation", artifact(frame.file, root)},
                                      {"region", {{"startLine", frame.line}}}};
    }
    json stack_frame = {{"location", std::move(location)}};
    if (frame.inlined) stack_frame["properties"] = {{"inlined", true}};
    frames.push_back(std::move(stack_frame));
  }
  return frames;
}

std::string rule_name(FindingKind kind) {
  // PascalCase of the kind: leak_at_exit -> LeakAtExit.
  std::string out;
  bool upper = true;
  for (const char* p = kind_name(kind); *p != '\0'; ++p) {
    if (*p == '_') {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(*p - 'a' + 'A') : *p;
    upper = false;
  }
  return out;
}

}  // namespace

json render_sarif(const ReportDocument& doc, const std::string& source_root) {
  const std::string root = source_root.empty() ? "" : with_slash(source_root);
  json rules = json::array();
  for (FindingKind kind : kAllKinds) {
    rules.push_back(
        {{"id", kind_name(kind)},
         {"name", rule_name(kind)},
         {"shortDescription", {{"text", kind_description(kind)}}},
         {"fullDescription", {{"text", kind_description(kind)}}},
         {"help",
          {{"text",
            "See FINDINGS.md in the vkleak sources for the definition. " + vuid_help(kind)}}},
         {"defaultConfiguration", {{"level", kind_is_error(kind) ? "error" : "warning"}}},
         {"properties", {{"tags", {"vulkan", "resource-leak"}}}}});
  }
  json results = json::array();
  const ShownProblems problems(doc);
  for (const ShownProblem& p : problems.all()) {  // new problems first
    const Finding evidence = problem_evidence(p);
    const Finding* f = &evidence;
    std::string text = finding_title(*f) + ": ";
    const std::vector<const Finding*> members = p.findings();
    if (members.size() == 1) {
      text += f->message;
    } else {
      text += kinds_text(*p.problem) + ", one problem (" + count_text(p) +
              (p.problem->bytes > 0 ? ", " + format_bytes(p.problem->bytes) : "") + "):";
      for (const Finding* g : members)
        text += " " + std::string(kind_name(g->kind)) + ": " + g->message;
    }
    json kinds = json::array();
    for (FindingKind k : p.problem->kinds) kinds.push_back(kind_name(k));
    // The validation layer's words for the same bug, across the problem's kinds.
    std::vector<std::string> vuids;
    for (const Finding* g : members)
      for (const std::string& v : g->vuids)
        if (std::find(vuids.begin(), vuids.end(), v) == vuids.end()) vuids.push_back(v);
    json result = {{"ruleId", kind_name(f->kind)},
                   {"ruleIndex", static_cast<int>(f->kind)},
                   {"level", kind_is_error(f->kind) ? "error" : "warning"},
                   {"message", {{"text", printable(text)}}},
                   // The problem's identity: the same whatever its kinds at this snapshot cadence.
                   {"partialFingerprints", {{"vkleakProblem/v2", stable_hash(f->identity())}}},
                   {"properties",
                    {{"kinds", std::move(kinds)},
                     {"findings", members.size()},
                     {"count", p.problem->count},
                     {"bytes", p.problem->bytes},
                     {"objectType", printable(f->object_type, kDisplayChars)},
                     {"names", display_names(f->names)},
                     {"pid", f->pid},
                     {"snapshot", f->snapshot},
                     {"vuids", vuids}}}};
    json locations = json::array();
    if (const Frame* s = problems.distinguishing_frame(p)) {
      json location = {
          {"physicalLocation",
           {{"artifactLocation", artifact(s->file, root)}, {"region", {{"startLine", s->line}}}}}};
      if (!s->function.empty()) {
        location["logicalLocations"] = {
            {{"fullyQualifiedName", printable(s->function, kDisplayChars)}, {"kind", "function"}}};
      }
      locations.push_back(std::move(location));
    } else if (!f->callsite.empty()) {
      // No source line: the function (or module+offset) is still worth showing.
      locations.push_back(
          {{"logicalLocations",
            {{{"fullyQualifiedName", printable(f->callsite.front().text, kDisplayChars)},
              {"kind", "function"}}}}});
    }
    if (!locations.empty()) result["locations"] = std::move(locations);
    if (!f->stacks.empty()) {
      // Misuse: its labeled stacks (§3.27.23), and each one's innermost source line as a
      // related location, so a viewer links "destroyed here" and "created here" to the code.
      json stacks = json::array();
      json related = json::array();
      for (const LabeledStack& st : f->stacks) {
        std::string text = st.label;
        for (size_t i = 0; i < st.lines.size(); ++i) text += (i ? "; " : ": ") + st.lines[i];
        if (!st.note.empty()) text += " (" + st.note + ")";
        text = printable(text, 2 * kDisplayChars);
        for (const Frame& frame : st.frames) {
          if (frame.file.empty() || frame.line <= 0) continue;
          related.push_back({{"id", related.size()},
                             {"message", {{"text", text}}},
                             {"physicalLocation",
                              {{"artifactLocation", artifact(frame.file, root)},
                               {"region", {{"startLine", frame.line}}}}}});
          break;
        }
        stacks.push_back(
            {{"message", {{"text", std::move(text)}}}, {"frames", sarif_frames(st.frames, root)}});
      }
      result["stacks"] = std::move(stacks);
      if (!related.empty()) result["relatedLocations"] = std::move(related);
    } else if (f->callsite.size() > 1) {
      // The rest of the call stack, innermost first.
      result["stacks"] = {{{"message", {{"text", "creation call site"}}},
                           {"frames", sarif_frames(f->callsite, root)}}};
    }
    if (p.status() != GateStatus::kNone) {
      result["baselineState"] = p.status() == GateStatus::kNew ? "new" : "unchanged";
      if (p.status() == GateStatus::kSuppressed) {
        result["suppressions"] = {
            {{"kind", "external"},
             {"justification", printable(p.problem->suppressed_by, kDisplayChars)}}};
      }
    }
    results.push_back(std::move(result));
  }
  json run = {{"tool",
               {{"driver",
                 {{"name", "vkleak"}, {"version", VKLEAK_VERSION}, {"rules", std::move(rules)}}}}},
              {"columnKind", "utf16CodeUnits"},
              {"results", std::move(results)}};
  // A run the snapshots do not cover whole was not fully checked: say so where SARIF says it.
  json notifications = json::array();
  for (const RunReport& r : doc.runs) {
    for (const std::string& problem : r.incomplete) {
      notifications.push_back(
          {{"level", "error"},
           {"message",
            {{"text", "incomplete run (pid " + std::to_string(r.pid) + "): " + problem}}}});
    }
  }
  run["invocations"] = {{{"executionSuccessful", notifications.empty()},
                         {"toolExecutionNotifications", std::move(notifications)}}};
  if (!root.empty()) {
    run["originalUriBaseIds"] = {{"SRCROOT", {{"uri", "file://" + uri_path(root)}}}};
  }
  return {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
          {"version", "2.1.0"},
          {"runs", json::array({std::move(run)})}};
}

}  // namespace vkleak::report
