// The output of `vkleak diff`: text, or JSON ({"format": "vkleak-diff", "version": 1}).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "analysis/diff.h"
#include "shared/text.h"

namespace vkleak::report {

// top: call sites shown (0: all).
std::string render_diff_text(const analysis::DiffResult& diff, const Style& style, size_t top);
nlohmann::json diff_json(const analysis::DiffResult& diff);

}  // namespace vkleak::report
