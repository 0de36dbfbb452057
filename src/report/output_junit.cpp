// JUnit XML, as CI systems read it: one test case per problem (findings about the same objects
// are one problem, its kinds listed in it), failing when it is a bug (for the gate: when it is
// new; the others are skipped, with why), and one test case for the runs being checked whole.
#include "analysis/problems.h"
#include "report/output.h"
#include "shared/escape.h"

namespace vkleak::report {

using namespace analysis;  // the model it renders

namespace {

// XML text: every field escaped on its own (shared/escape.h), joined with real newlines. What each
// kind says, then the evidence once.
std::string describe(const ShownProblem& p) {
  const Finding& f = p.primary();
  std::string text =
      xml_text(finding_title(f), SIZE_MAX) + ": " +
      xml_text(count_text(p) +
                   (p.problem->bytes > 0 ? ", " + format_bytes(p.problem->bytes) : std::string()),
               SIZE_MAX);
  for (const Finding* g : p.findings())
    text += "\n    " + std::string(kind_name(g->kind)) + ": " + xml_text(g->message, SIZE_MAX);
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

// The test case's name: what and where, without counts or line numbers, so that CI history
// follows one problem from run to run: VkBuffer "leak.*" at main > leak_buffers.
std::string case_name(const ShownProblem& p) {
  const Finding& f = p.primary();
  std::string name = finding_title(f);
  const std::string path = callsite_path(f);
  if (!path.empty()) {
    name += " at " + path;
  } else if (!f.callsite.empty()) {
    name += " at " + f.callsite.front().text;
  }
  return name;
}

}  // namespace

std::string render_junit(const ReportDocument& doc) {
  const ShownProblems problems(doc);
  size_t failures = 0;
  for (const ShownProblem& p : problems.all())
    failures += !doc.gate || p.status() == GateStatus::kNew;
  const size_t skipped = problems.size() - failures;  // a gate's problems that do not fail it
  // One more test case: every run was checked whole (no crash, no missing snapshot).
  std::string incomplete;
  for (const RunReport& r : doc.runs) {
    for (const std::string& problem : r.incomplete)
      incomplete += xml_text(doc.run_label(r) + ": " + problem, SIZE_MAX) + "\n";
  }
  const bool incomplete_fails = !incomplete.empty() && !(doc.gate && doc.gate->allow_incomplete);
  failures += incomplete_fails ? 1 : 0;
  const size_t tests = problems.size() + 1;

  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<testsuites name=\"vkleak\" tests=\"" + std::to_string(tests) + "\" failures=\"" +
         std::to_string(failures) + "\" errors=\"0\">\n";
  out += "  <testsuite name=\"vkleak\" tests=\"" + std::to_string(tests) + "\" failures=\"" +
         std::to_string(failures) + "\" errors=\"0\" skipped=\"" + std::to_string(skipped) +
         "\">\n";
  // New problems first (ShownProblems' order).
  for (const ShownProblem& p : problems.all()) {
    const std::string kinds = kinds_text(*p.problem);
    out +=
        "    <testcase classname=\"vkleak\" name=\"" + xml_text(case_name(p), SIZE_MAX) + "\">\n";
    if (!doc.gate || p.status() == GateStatus::kNew) {
      out += "      <failure type=\"" + xml_text(kinds, SIZE_MAX) + "\" message=\"" +
             xml_text("#" + std::to_string(p.number) + " " + kinds + ": " +
                          kind_description(p.primary().kind),
                      SIZE_MAX) +
             "\">" + describe(p) + "\n</failure>\n";
    } else {
      std::string why = p.status() == GateStatus::kBaseline ? "in the baseline"
                        : p.status() == GateStatus::kSuppressed
                            ? "suppressed by " + p.problem->suppressed_by
                            : "not a kind --fail-on counts";
      out += "      <skipped message=\"" +
             xml_text("#" + std::to_string(p.number) + " " + kinds + ": " + why, SIZE_MAX) +
             "\"/>\n";
      out += "      <system-out>[" + xml_text(name(p.status())) + "] " + describe(p) +
             "\n</system-out>\n";
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

}  // namespace vkleak::report
