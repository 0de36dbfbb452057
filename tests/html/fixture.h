// Documents for the HTML report's tests: the incident run (findings of incidents 1, 2 and 5 with
// hostile debug names, chains and a run's series) and a misuse finding with stacks.
#pragma once

#include "analysis/finding.h"
#include "report/output.h"

namespace vkleak::html_test {

analysis::ReportDocument incident_fixture();
analysis::Finding misuse_finding();

}  // namespace vkleak::html_test
