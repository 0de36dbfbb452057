#include "report/renderers.h"

#include "report/html_report.h"
#include "report/output.h"

namespace vkleak::report {

std::string render_text_format(const analysis::ReportDocument& doc, const RenderOptions& options) {
  return render_text(doc, Style(options.color), options.sparklines);
}

std::string render_json_format(const analysis::ReportDocument& doc, const RenderOptions&) {
  return dump_json(findings_json(doc), 2) + "\n";
}

std::string render_markdown_format(const analysis::ReportDocument& doc, const RenderOptions&) {
  return render_markdown(doc);
}

std::string render_junit_format(const analysis::ReportDocument& doc, const RenderOptions&) {
  return render_junit(doc);
}

std::string render_sarif_format(const analysis::ReportDocument& doc, const RenderOptions& options) {
  return dump_json(render_sarif(doc, options.source_root), 2) + "\n";
}

std::string render_html_format(const analysis::ReportDocument& doc, const RenderOptions&) {
  return render_html(doc);
}

const Renderer* find_renderer(const std::string& name) {
  for (const Renderer& r : kRenderers) {
    if (name == r.name) return &r;
  }
  return nullptr;
}

}  // namespace vkleak::report
