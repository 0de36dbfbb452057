// Renders a test report to an HTML file, and its findings document (the same model through the
// JSON output) for the browser test to check the page against:
// vkleak_render_html_file incident|empty OUT.html OUT.json
#include <fstream>
#include <iostream>
#include <string>

#include "fixture.h"
#include "report/html_report.h"
#include "report/output.h"

namespace {

bool write(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) std::cerr << "cannot write " << path << "\n";
  return static_cast<bool>(out);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string which = argc == 4 ? argv[1] : "";
  if (which != "incident" && which != "empty") {
    std::cerr << "usage: " << argv[0] << " incident|empty OUT.html OUT.json\n";
    return 2;
  }
  const vkleak::analysis::ReportDocument doc = which == "incident"
                                                   ? vkleak::html_test::incident_fixture()
                                                   : vkleak::analysis::ReportDocument{};
  const bool ok = write(argv[2], vkleak::report::render_html(doc)) &&
                  write(argv[3], vkleak::report::findings_json(doc).dump(1));
  return ok ? 0 : 1;
}
