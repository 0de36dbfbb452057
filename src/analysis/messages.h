// The one-paragraph message of each finding, in plain words: what, how many, since when, what
// it holds.
#pragma once

#include <string>

#include "analysis/finding.h"
#include "analysis/hits.h"
#include "analysis/options.h"
#include "analysis/rules/rules.h"

namespace vkleak::analysis {

// "\"wrapper.vertices\"", "\"bindgroup.*\"" or "" for unnamed objects.
std::string quoted_pattern(const Finding& f);

std::string leak_message(const Finding& f, const Hits& h);
std::string retained_message(const Finding& f, const Hits& h, const Thresholds& t);
std::string stale_message(const Finding& f, const Hits& h, const Thresholds& t);
std::string orphaned_message(const Finding& f, const Hits& h, const Thresholds& t);
std::string growth_message(const Finding& f, size_t first_point, const GrowthVerdict& live,
                           const GrowthVerdict& bytes);
std::string event_message(const Finding& f);

}  // namespace vkleak::analysis
