// JUnit XML, as CI systems read it: one test case per finding kind, failing with the findings of
// that kind (for the gate: the new ones; the others are listed in system-out).
#include <map>

#include "core/escape.h"
#include "report/output.h"

namespace vkleak::analysis {

namespace {

// XML text: every field escaped on its own (core/escape.h), joined with real newlines.
std::string describe(const Finding& f) {
  std::string text = xml_text(finding_title(f), SIZE_MAX) + ": " + xml_text(f.message, SIZE_MAX);
  if (!f.stacks.empty()) {
    // Misuse: its stacks as the text report prints them (the creation among them).
    for (const std::string& line : stack_lines(f))
      text += "\n    " + xml_text(line, 2 * kDisplayChars);
  } else if (!f.callsite.empty()) {
    text += "\n    created at " + xml_text(f.callsite.front().text);
    // The inlined helper's line alone hides who called it: up to the first real call.
    for (size_t i = 1; i < f.callsite.size() && f.callsite[i - 1].inlined; ++i)
      text += "\n               " + xml_text(f.callsite[i].text);
  }
  if (f.pid != 0) text += "\n    pid " + std::to_string(f.pid) + ", " + xml_text(f.snapshot);
  return text;
}

}  // namespace

std::string render_junit(const ReportDocument& doc) {
  std::map<FindingKind, std::vector<const Finding*>> failing, passing;
  for (const Finding* f : all_findings(doc)) {
    const bool fails = !doc.gate || f->status == "new";
    (fails ? failing : passing)[f->kind].push_back(f);
  }
  size_t failures = 0;
  for (const auto& [kind, list] : failing) failures += list.empty() ? 0 : 1;
  // One more test case: every run was checked whole (no crash, no missing snapshot).
  std::string incomplete;
  for (const RunReport& r : doc.runs) {
    for (const std::string& problem : r.incomplete)
      incomplete += "pid " + std::to_string(r.pid) + ": " + xml_text(problem, SIZE_MAX) + "\n";
  }
  const bool incomplete_fails = !incomplete.empty() && !(doc.gate && doc.gate->allow_incomplete);
  failures += incomplete_fails ? 1 : 0;
  const size_t tests = std::size(kAllKinds) + 1;

  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<testsuites name=\"vkleak\" tests=\"" + std::to_string(tests) + "\" failures=\"" +
         std::to_string(failures) + "\" errors=\"0\">\n";
  out += "  <testsuite name=\"vkleak\" tests=\"" + std::to_string(tests) + "\" failures=\"" +
         std::to_string(failures) + "\" errors=\"0\" skipped=\"0\">\n";
  for (FindingKind kind : kAllKinds) {
    out += "    <testcase classname=\"vkleak\" name=\"" + std::string(kind_name(kind)) + "\">\n";
    const auto& fails = failing[kind];
    if (!fails.empty()) {
      std::string body;
      for (size_t i = 0; i < fails.size(); ++i) {
        body += std::to_string(i + 1) + ". " + describe(*fails[i]) + "\n";
      }
      out +=
          "      <failure type=\"" + std::string(kind_name(kind)) + "\" message=\"" +
          xml_text(std::to_string(fails.size()) +
                       (fails.size() == 1 ? " finding: " : " findings: ") + kind_description(kind),
                   SIZE_MAX) +
          "\">" + body + "</failure>\n";
    }
    const auto& others = passing[kind];
    if (!others.empty()) {
      std::string body;
      for (const Finding* f : others)
        body += "[" + xml_text(f->status) + "] " + describe(*f) + "\n";
      out += "      <system-out>" + body + "</system-out>\n";
    }
    out += "    </testcase>\n";
  }
  out += "    <testcase classname=\"vkleak\" name=\"complete_run\">\n";
  if (incomplete_fails) {
    out += "      <failure type=\"incomplete_run\" message=\"" +
           xml_text("the snapshots do not cover the whole run: leaks were not fully checked",
                    SIZE_MAX) +
           "\">" + incomplete + "</failure>\n";
  } else if (!incomplete.empty()) {
    out += "      <system-out>[allowed] " + incomplete + "</system-out>\n";
  }
  out += "    </testcase>\n";
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

}  // namespace vkleak::analysis
