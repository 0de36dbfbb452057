// The output formats of report and gate, rendered from the analysis model (ReportDocument in
// analysis/finding.h): JSON (the versioned findings document that baselines and other tools
// read), text, Markdown, JUnit XML and SARIF 2.1.0; the HTML page is in html_report.h.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "analysis/finding.h"
#include "shared/text.h"

namespace vkleak::analysis {
struct ShownProblem;  // analysis/problems.h
}  // namespace vkleak::analysis

namespace vkleak::report {

// Every JSON vkleak writes, as text: names come from the application and symbols from
// binaries, so what is not UTF-8 is replaced (U+FFFD); everything else as the JSON standard says.
inline std::string dump_json(const nlohmann::json& j, int indent = -1) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

// {"format": "vkleak-findings", "version": 1, ...}: see src/schema/vkleak-findings.schema.json.
nlohmann::json findings_json(const analysis::ReportDocument& doc);
struct SparklineOptions;  // report/sparkline.h
// sparklines: per-type sparklines of live bytes under each run's snapshots line (none: nullptr).
std::string render_text(const analysis::ReportDocument& doc, const Style& style,
                        const SparklineOptions* sparklines = nullptr);
std::string render_markdown(const analysis::ReportDocument& doc);
std::string render_junit(const analysis::ReportDocument& doc);
// source_root: paths of source files under it become relative URIs (what code-scanning
// services expect); others stay absolute file: URIs.
nlohmann::json render_sarif(const analysis::ReportDocument& doc, const std::string& source_root);

// Shared by the formats.
std::string finding_title(const analysis::Finding& f);  // "VkBuffer \"wrapper.vertices\""
// The innermost application frame that has a source file, or nullptr.
const analysis::Frame* source_frame(const analysis::Finding& f);
// The program's own functions of the call site, outermost first: "cache_thumbnail > make", at
// most max_functions, up to main (libc's start code left out), inlined frames included. Empty
// when the innermost frame has no function.
inline constexpr size_t kSummaryFunctions = 3;
std::string callsite_path(const analysis::Finding& f, size_t max_functions = kSummaryFunctions);
// "cache_thumbnail > make (file.cpp:52)": the short path and the innermost frame's line; the
// innermost frame's text when it has no function.
// Past max_chars, the outermost functions are left out ("... > "), never the innermost.
std::string callsite_summary(const analysis::Finding& f, size_t max_chars = SIZE_MAX);
// The finding's stacks as ASan prints them, one line each, unescaped (each output applies its
// own rule per line): "destroyed here:", then "    #0 fn (file:line)" per frame ("(inlined)"
// marked), the stack's lines and its note, indented. Empty when the finding has no stacks.
std::vector<std::string> stack_lines(const analysis::Finding& f);
// Findings of all runs, in the order shown (runs in order, each ranked).
std::vector<const analysis::Finding*> all_findings(const analysis::ReportDocument& doc);

// The evidence of a problem, shown once: its best-ranked finding with the names of all its
// findings, the chains, and the stacks, retainers, events and examples of the first finding
// that has them. Its message, kind, count and bytes are the best-ranked finding's.
analysis::Finding problem_evidence(const analysis::ShownProblem& p);
// "1 object", "300 objects", "2 events" (misuse findings count events).
std::string count_text(const analysis::ShownProblem& p);

}  // namespace vkleak::report
