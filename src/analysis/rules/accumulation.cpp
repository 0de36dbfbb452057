#include <algorithm>
#include <cstddef>

#include "analysis/rules/rules.h"

namespace vkleak::analysis {

std::vector<uint64_t> running_floor(const std::vector<uint64_t>& live) {
  std::vector<uint64_t> floor(live.size());
  uint64_t low = UINT64_MAX;
  for (size_t k = live.size(); k-- > 0;) {
    low = std::min(low, live[k]);
    floor[k] = low;
  }
  return floor;
}

std::vector<uint64_t> kept_series(const std::vector<uint64_t>& frames,
                                  std::vector<uint64_t> created) {
  std::sort(created.begin(), created.end());
  std::vector<uint64_t> kept(frames.size());
  for (size_t k = 0; k < frames.size(); ++k) {
    // Made before the snapshot's frame: one made during it may come after the snapshot.
    kept[k] = static_cast<uint64_t>(std::lower_bound(created.begin(), created.end(), frames[k]) -
                                    created.begin());
  }
  return kept;
}

bool spread_over_run(const std::vector<uint64_t>& series) {
  // From the group's first object on, as judge_growth.
  const auto first_nonzero =
      std::find_if(series.begin(), series.end(), [](uint64_t x) { return x != 0; });
  return rises_in_both_halves(std::vector<uint64_t>(first_nonzero, series.end()));
}

bool rises_in_both_halves(const std::vector<uint64_t>& values) {
  if (values.size() < 3) return false;
  const uint64_t first = values.front();
  const uint64_t mid = values[(values.size() - 1) / 2];
  const uint64_t last = values.back();
  if (last <= first || mid < first || last < mid) return false;
  // A quarter of the rise on each side of the middle, one object at least.
  const uint64_t quarter = std::max<uint64_t>(1, (last - first + 3) / 4);
  return mid - first >= quarter && last - mid >= quarter;
}

AccumulationVerdict judge_accumulation(const std::vector<uint64_t>& live,
                                       const std::vector<uint64_t>& kept,
                                       const Thresholds& thresholds) {
  AccumulationVerdict v;
  const std::vector<uint64_t> floor = running_floor(live);
  // The floor is 0 until the group's last empty snapshot: what is judged starts there. A group
  // that was empty past the middle of the run (zink's batch states, re-made for a new context
  // at the last scene) is warming up again: too little of the run to judge.
  const auto empty_until = static_cast<size_t>(
      std::find_if(floor.begin(), floor.end(), [](uint64_t x) { return x != 0; }) - floor.begin());
  if (2 * empty_until > floor.size()) return v;
  v.floor = judge_growth(floor, thresholds);
  v.kept = judge_growth(kept, thresholds);
  // The kept objects counted from the group's first object (since it last started over), not
  // from the first of them: a turnover whose survivors were all made in the last snapshots
  // (emitters, its floor stepping up by chance at the end) has not kept objects over the run.
  const std::vector<uint64_t> kept_since_start(
      kept.begin() + static_cast<std::ptrdiff_t>(std::min(empty_until, kept.size())), kept.end());
  v.accumulating = v.floor.growing && v.kept.growing && spread_over_run(floor) &&
                   rises_in_both_halves(kept_since_start);
  return v;
}

}  // namespace vkleak::analysis
