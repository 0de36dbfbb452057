// The thresholds of the analysis. Defaults suit a run of a few hundred frames with a snapshot
// every few dozen frames; FINDINGS.md says why each has the value it has.
#pragma once

#include <cstdint>

namespace vkleak::analysis {

struct Thresholds {
  // retained, orphaned_memory, stale_view (pinning): frames without any submission using an
  // object before it counts as unused. Several times the usual 2-3 frames in flight.
  uint32_t min_frames_unused = 16;
  // stale_view (dangling): frames since the referenced object was destroyed. Above the frames in
  // flight, so a set freed right after its resource is not reported.
  uint32_t min_frames_stale = 8;
  // growth: snapshots taken before this frame are start-up, not growth.
  uint32_t warmup_frames = 20;
  // growth: snapshots after the warm-up needed to call anything growth.
  uint32_t growth_min_snapshots = 4;
  // growth: intervals between snapshots in which the value must rise (and a third of them).
  uint32_t growth_min_rises = 3;
};

struct AnalysisOptions {
  Thresholds thresholds;
  uint32_t max_examples = 5;    // example objects kept per finding
  uint32_t max_names = 100;     // debug names listed per finding (the rest are counted)
  uint32_t series_groups = 10;  // growing groups whose series the report carries
  // Lifetime cells the HTML explorer embeds (RunLifetimes): ~20 bytes of page each, so 250k keep
  // a page of a million objects over 100 snapshots well under 20 MB; the rest are counted.
  uint32_t max_lifetime_cells = 250000;
  bool symbolize = true;  // false: call sites as module+offset, no binary is read
};

}  // namespace vkleak::analysis
