// The output formats of report and gate, one row each: the one table the CLI reads for --format,
// its help and choices, the --FORMAT FILE options and what each writes. A new output format is a
// renderer (its own file in src/report/) and a row here (ARCHITECTURE.md, "Where to change what").
#pragma once

#include <cstddef>
#include <iterator>
#include <string>

#include "analysis/finding.h"
#include "shared/text.h"

namespace vkleak::report {

struct SparklineOptions;  // report/sparkline.h

// What a renderer may need beyond the document.
struct RenderOptions {
  bool color = false;                            // text: ANSI colours
  const SparklineOptions* sparklines = nullptr;  // text: per-type sparklines (none: nullptr)
  std::string source_root;  // SARIF: absolute; source paths under it become relative
};

using RenderFunction = std::string (*)(const analysis::ReportDocument& doc,
                                       const RenderOptions& options);

struct Renderer {
  const char* name;       // --format NAME, and the choices' order
  const char* extension;  // of a file of this format
  // --format's help names it so ("json (the findings document)"); nullptr: no --format NAME
  // (a file only: the HTML page is not for a terminal).
  const char* format_help;
  // Its file option (--NAME FILE) and help; nullptr: stdout only.
  const char* file_help;
  RenderFunction render;
};

std::string render_text_format(const analysis::ReportDocument& doc, const RenderOptions& options);
std::string render_json_format(const analysis::ReportDocument& doc, const RenderOptions& options);
std::string render_markdown_format(const analysis::ReportDocument& doc,
                                   const RenderOptions& options);
std::string render_junit_format(const analysis::ReportDocument& doc, const RenderOptions& options);
std::string render_sarif_format(const analysis::ReportDocument& doc, const RenderOptions& options);
std::string render_html_format(const analysis::ReportDocument& doc, const RenderOptions& options);

// In the order of --format's help and choices, and of the file options and the files written.
inline constexpr Renderer kRenderers[] = {
    {"text", ".txt", "text (default)", nullptr, render_text_format},
    {"json", ".json", "json (the findings document)", "Also write the findings JSON to FILE",
     render_json_format},
    {"markdown", ".md", "markdown", "Also write Markdown to FILE", render_markdown_format},
    {"junit", ".xml", "junit", "Also write JUnit XML to FILE", render_junit_format},
    {"sarif", ".sarif", "sarif", "Also write SARIF 2.1.0 to FILE", render_sarif_format},
    {"html", ".html", nullptr, "Also write an HTML report to FILE", render_html_format},
};
inline constexpr size_t kRendererCount = std::size(kRenderers);
inline constexpr const char* kDefaultFormat = "text";

// The row of a format's name, nullptr when there is none.
const Renderer* find_renderer(const std::string& name);

}  // namespace vkleak::report
