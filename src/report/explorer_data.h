// The HTML explorer's data: the run's lifetimes (RunLifetimes), call sites and findings as one
// JSON document embedded in the page (<script type="application/json"
// id="vkleak-explorer-data">), read by the page's script. Its shape is the explorer contract's
// (version 1, src/report/explorer/CONTRACT.md): string tables for types, function and file names;
// frames and stacks (outermost first) shared by the groups; groups as [type, stack, name pattern,
// attached] (attached = 1: memory bound to one object, its bytes counted with that object); cells
// as a flat list of 5 integers.
#pragma once

#include <string>

#include "analysis/finding.h"

namespace vkleak::report {

inline constexpr int kExplorerDataVersion = 1;

// The JSON text for one run, safe inside a <script> element: every '<' is written as \u003c (so
// neither "</script>" nor "<!--" can end or change the element); otherwise dump_json's JSON.
std::string explorer_data_json(const analysis::RunReport& run);

// The <script type="application/json" id="vkleak-explorer-data"> element of the document's first
// run (a newline after it), or "" when there are no runs.
std::string explorer_data_element(const analysis::ReportDocument& doc);

}  // namespace vkleak::report
