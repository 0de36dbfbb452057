#include <algorithm>

#include "analysis/rules/rules.h"

namespace vkleak::analysis {

GrowthVerdict judge_growth(const std::vector<uint64_t>& values, const Thresholds& thresholds) {
  GrowthVerdict v;
  if (values.size() < std::max<uint32_t>(thresholds.growth_min_snapshots, 2)) return v;
  v.intervals = static_cast<uint32_t>(values.size() - 1);
  uint32_t falls = 0;
  for (size_t j = 1; j < values.size(); ++j) {
    v.rises += values[j] > values[j - 1];
    falls += values[j] < values[j - 1];
  }
  const uint64_t last = values.back();
  // Up often (a slow leak may rise only every other snapshot), down rarely, and still rising
  // in the second half, ending at its highest: a cache that fills and levels off, a pool that
  // comes and goes, or something trimmed back fails one of these.
  v.growing = v.rises >= thresholds.growth_min_rises && 3 * v.rises >= v.intervals &&
              2 * falls <= v.rises && last > values.front() && last > values[values.size() / 2] &&
              last == *std::max_element(values.begin(), values.end());
  return v;
}

}  // namespace vkleak::analysis
