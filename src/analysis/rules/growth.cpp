#include <algorithm>

#include "analysis/rules/rules.h"

namespace vkleak::analysis {

GrowthVerdict judge_growth(const std::vector<uint64_t>& series, const Thresholds& thresholds) {
  GrowthVerdict v;
  // Zeros before the group's first object say nothing: the snapshots predate it. Judged from
  // there on, a group that appears with its working set and keeps it is flat, not "from 0".
  const auto first_nonzero =
      std::find_if(series.begin(), series.end(), [](uint64_t x) { return x != 0; });
  const std::vector<uint64_t> values(first_nonzero, series.end());
  if (values.size() < std::max<uint32_t>(thresholds.growth_min_snapshots, 2)) return v;
  v.intervals = static_cast<uint32_t>(values.size() - 1);
  uint32_t falls = 0;
  for (size_t j = 1; j < values.size(); ++j) {
    v.rises += values[j] > values[j - 1];
    falls += values[j] < values[j - 1];
  }
  const uint32_t flats = v.intervals - v.rises - falls;
  const uint64_t first = values.front();
  const uint64_t last = values.back();
  // Ending at its highest and still rising in the second half: a cache that fills and levels
  // off, a pool that comes and goes, or something trimmed back fails this.
  const bool still_rising = last > first && last > values[values.size() / 2] &&
                            last == *std::max_element(values.begin(), values.end());
  // Up often (a slow leak may rise only every other snapshot), down rarely.
  const bool often =
      v.rises >= thresholds.growth_min_rises && 3 * v.rises >= v.intervals && 2 * falls <= v.rises;
  // In steps (an allocator that grows a batch at a time): never down, as many steps as rising
  // often needs (two are a working set finding its size), with levels between them, ending at
  // least half as high again as it started.
  const bool steps = falls == 0 && v.rises >= std::max<uint32_t>(thresholds.growth_min_rises, 2) &&
                     flats >= v.rises && 2 * last >= 3 * first;
  v.growing = still_rising && (often || steps);
  v.stepped = v.growing && !often;
  return v;
}

bool decelerating(const std::vector<uint64_t>& frames, const std::vector<uint64_t>& values) {
  const size_t n = values.size();
  if (n < 3 || frames.size() != n) return false;
  const size_t h = n / 2;
  const auto rate = [&](size_t a, size_t b) {
    const double span = static_cast<double>(frames[b]) - static_cast<double>(frames[a]);
    const double rise = static_cast<double>(values[b]) - static_cast<double>(values[a]);
    return span > 0 ? rise / span : 0.0;
  };
  return rate(h, n - 1) < rate(0, h);
}

}  // namespace vkleak::analysis
