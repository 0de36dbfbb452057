#include "analysis/analyzer.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <unordered_set>
#include <utility>

#include "analysis/messages.h"
#include "analysis/problems.h"
#include "analysis/rules/rules.h"
#include "analysis/vuids.h"
#include "core/summary.h"
#include "core/symbolizer.h"
#include "format/snapshot_format.h"
#include "shared/escape.h"
#include "shared/text.h"

namespace vkleak::analysis {

RunAnalyzer::RunAnalyzer(const AnalysisOptions& options)
    : options_(options), callsites_(options.symbolize), events_(options_) {}

RunAnalyzer::~RunAnalyzer() = default;

void RunAnalyzer::add(Snapshot snapshot) {
  if (report_.snapshots.empty()) {
    report_.pid = snapshot.pid;
    report_.run_id = snapshot.run_id;
    report_.executable = snapshot.executable;
  }
  // "submit" wins: frames of this run were counted at submits at least for a while.
  if (report_.frame_boundary.empty() ||
      snapshot.frame_boundary == format::name(format::FrameBoundary::kSubmit))
    report_.frame_boundary = snapshot.frame_boundary;
  frame_counting_.at_submits_auto |= frames_at_submits_auto(snapshot);
  frame_counting_.max_frame = std::max(frame_counting_.max_frame, snapshot.frame);
  uint64_t submits = 0, presents = 0;
  for (const Device& d : snapshot.devices) {
    submits += d.submits;
    presents += d.presents;
  }
  frame_counting_.submits = std::max(frame_counting_.submits, submits);
  frame_counting_.presents = std::max(frame_counting_.presents, presents);
  report_.snapshots.push_back(SnapshotInfo{snapshot.path, snapshot.sequence, snapshot.reason,
                                           snapshot.frame, snapshot.objects.size()});
  degraded_ |= snapshot.degraded;
  events_dropped_ += snapshot.events_dropped;
  completeness_.add(snapshot);
  error_results_.out_of_device_memory =
      std::max(error_results_.out_of_device_memory, snapshot.error_results.out_of_device_memory);
  error_results_.out_of_host_memory =
      std::max(error_results_.out_of_host_memory, snapshot.error_results.out_of_host_memory);
  error_results_.device_lost =
      std::max(error_results_.device_lost, snapshot.error_results.device_lost);

  auto snap = std::make_unique<Snapshot>(std::move(snapshot));
  auto index = std::make_unique<SnapshotIndex>(*snap, &callsites_, &groups_);
  events_.add(*index, previous_);

  // Crash and error snapshots are taken during the run (never teardown: no leak_at_exit).
  note_incident(*snap);
  const bool teardown = is_teardown(*snap);
  const bool exit_snapshot = snap->reason == format::name(format::Reason::kExit);
  saw_teardown_ |= teardown;
  saw_exit_ |= exit_snapshot;
  // How the process ended decides what alive then means. exit() (or a return from main) with
  // an instance or device never destroyed: one leak per root, holding what is under it.
  // _exit(), quick_exit() (the exit hook's label) and a fatal signal skip every teardown: what is
  // alive is listed, not judged (LeakSanitizer skips its check at _exit too).
  const bool skipped = (exit_snapshot && snap->label && !snap->label->empty()) ||
                       snap->reason == format::name(format::Reason::kCrash);
  if (teardown || (exit_snapshot && !skipped)) {
    std::vector<uint8_t> under_root;
    if (!teardown) record_exit_roots(*index, find_undestroyed_roots(*index, &under_root));
    // What outlives its device is a leak whatever the series say; so is what the exit snapshot
    // shows outside any root (files without owners).
    for (size_t i = 0; i < index->size(); ++i) {
      if (!index->app_made(i) || (!under_root.empty() && under_root[i])) continue;
      if (teardown) at_teardown_.insert(index->group(i));
      outlived_.insert(index->object(i).id);
    }
    auto leaks = find_leaks_at_exit(*index, options_, under_root);
    // What holds a leak is read in the snapshot that shows it, through its live edges only: a
    // buffer destroyed before its device holds nothing (issue 27: the last snapshot taken
    // during the run named a pool for memory no live object referenced any more).
    std::optional<Retainers> retainers;
    if (!leaks.empty()) retainers.emplace(*index);
    for (auto& [group, h] : leaks) {
      h.retainers = retainers->of_group(group, options_.max_examples, &h.retainers_omitted);
      auto it = leaks_.find(group);
      if (it == leaks_.end()) {
        leaks_.emplace(group, std::move(h));
      } else {
        it->second.merge(std::move(h), options_.max_examples);
      }
    }
  }
  if (!teardown) {
    // Teardown snapshots show objects mid-destruction (views whose images went first, memory
    // whose buffers did): only snapshots taken during the run say anything about retention.
    // Whole-run evidence for the last snapshot's judgement (judge_last_snapshot): rings and
    // pools in steady use, free lists of descriptor sets rewritten later, and the series.
    reuse_.observe(*index, options_.thresholds);
    if (last_index_) note_sets_freed_one_by_one(*last_index_, *index);
    const RetainedMarks none{std::vector<uint8_t>(index->size(), 0), {}};
    std::vector<uint8_t> dangling;
    find_stale_views(*index, none, {}, options_, &dangling);  // every dangling referrer
    stale_recycling_.observe(*index, dangling);
    record_series(*index);
    note_dangling_sets(*index, dangling);
    record_lifetimes(*index, report_.snapshots.size() - 1);
    driver_memory_.add(*snap);
  }
  if (skipped) {  // after its lifetimes: the name patterns of its groups
    const std::string label = snap->label.value_or("");
    record_skipped_teardown(*index, exit_snapshot ? label + "()" : label);
  }
  events_.resolve_by_name(*index);
  previous_ = id_callsites(*index);
  if (!teardown) {
    last_index_ = std::move(index);  // before the snapshot it points into
    last_ = std::move(snap);
  }
}

void RunAnalyzer::note_sets_freed_one_by_one(const SnapshotIndex& before,
                                             const SnapshotIndex& now) {
  // Per live pool: one of its sets still alive, one gone. A reset or a pool that never frees
  // (Qt releases sets to await the pool's reset: no FREE_DESCRIPTOR_SET_BIT) frees all or none.
  std::unordered_map<int64_t, std::pair<bool, bool>> pools;  // pool id -> (one kept, one freed)
  for (size_t i = 0; i < before.size(); ++i) {
    if (!is_set_in_pool(before, i)) continue;
    const int64_t pool = before.object(i).parent;
    if (now.find(pool) == kNotFound) continue;
    auto& [kept, freed] = pools[pool];
    (now.find(static_cast<int64_t>(before.object(i).id)) != kNotFound ? kept : freed) = true;
  }
  for (const auto& [pool, seen] : pools) {
    if (seen.first && seen.second) frees_sets_one_by_one_.insert(pool);
  }
}

bool RunAnalyzer::sets_are_their_own_unit(const SnapshotIndex& index, size_t set) const {
  const int64_t pool = index.object(set).parent;
  if (frees_sets_one_by_one_.count(pool) != 0) return true;
  const size_t p = index.find(pool);
  return p != kNotFound && (index.object(p).create_flags & format::kPoolFreesSetsOneByOne) != 0;
}

void RunAnalyzer::note_dangling_sets(const SnapshotIndex& index,
                                     const std::vector<uint8_t>& dangling) {
  const auto point = static_cast<uint32_t>(frames_.size() - 1);  // record_series added it
  std::unordered_map<uint64_t, DanglingSince> now;
  for (size_t i = 0; i < index.size(); ++i) {
    // Sets allocated on demand dangle while they wait for their pool's reset (Qt): only those
    // allocated up front, handed out again by the program, dangle by being kept.
    if (dangling[i] == 0 || !is_set_allocated_with_its_pool(index, i)) continue;
    const uint64_t id = index.object(i).id;
    const uint32_t group = index.group(i);
    // A set rewritten to point at live objects in between starts a new run.
    const auto before = dangling_since_.find(id);
    now.emplace(
        id, DanglingSince{group, before != dangling_since_.end() ? before->second.point : point});
    std::vector<Point>& series = dangling_series_[group];
    if (series.empty() || series.back().point != point) series.push_back(Point{point, 0, 0});
    ++series.back().live;
  }
  dangling_since_.swap(now);
}

bool RunAnalyzer::dangling_sets_accumulate(uint32_t group,
                                           const std::vector<uint64_t>& frames) const {
  const auto it = dangling_series_.find(group);
  if (it == dangling_series_.end()) return false;
  std::vector<uint64_t> live(frames_.size(), 0);
  for (const Point& p : it->second) live[p.point] = p.live;
  live.erase(live.begin(), live.begin() + static_cast<std::ptrdiff_t>(first_point_));
  // Kept: the sets dangling at the last snapshot, counted from the snapshot their run began
  // (as if made just before it), so that a free list's turnover is not a pile.
  std::vector<uint64_t> since;
  for (const auto& [id, d] : dangling_since_) {
    if (d.group == group) since.push_back(frames_[d.point] > 0 ? frames_[d.point] - 1 : 0);
  }
  return judge_accumulation(live, kept_series(frames, std::move(since)), options_.thresholds)
      .accumulating;
}

void RunAnalyzer::record_exit_roots(const SnapshotIndex& index,
                                    const std::vector<UndestroyedRoot>& roots) {
  exit_roots_.clear();
  for (const UndestroyedRoot& r : roots) {
    HitCollector hits(index, options_.max_examples);
    hits.add(index.group(r.root), r.root, index.held_bytes(r.root));
    auto found = hits.finish();
    ExitRoot root{index.group(r.root), std::move(found.begin()->second), {}};
    for (size_t i : r.members) {
      if (index.attached(i)) continue;  // in its owner's bytes
      root.members.push_back(ExitMember{index.object(i).id, index.group(i), index.held_bytes(i)});
    }
    exit_roots_.push_back(std::move(root));
  }
}

namespace {

// Groups of objects counted together, most objects first (then bytes, type, pattern, call site:
// the same list whatever the order of objects in the snapshot).
void sort_alive(std::vector<AliveGroup>* alive) {
  std::sort(alive->begin(), alive->end(), [](const AliveGroup& a, const AliveGroup& b) {
    if (a.count != b.count) return a.count > b.count;
    if (a.bytes != b.bytes) return a.bytes > b.bytes;
    if (a.type != b.type) return a.type < b.type;
    if (a.name_pattern != b.name_pattern) return a.name_pattern < b.name_pattern;
    const std::string ca = a.callsite.empty() ? "" : a.callsite.front().text;
    const std::string cb = b.callsite.empty() ? "" : b.callsite.front().text;
    return ca < cb;
  });
}

// A group counted as AliveGroup: its type, call site and name pattern (the group's, or those
// its objects had over the run: groups with a call site are not split by name).
AliveGroup alive_group(GroupTable& groups, CallsiteTable& callsites,
                       const LifetimeCollector& lifetimes, uint32_t group, uint64_t count,
                       uint64_t bytes) {
  const GroupTable::Group& g = groups.at(group);
  std::string pattern;
  if (g.pattern != kNoPattern) {
    pattern = groups.pattern(g.pattern);
  } else if (const std::vector<uint32_t>* seen = lifetimes.patterns_of(group << 1)) {
    std::vector<std::string> patterns;
    for (uint32_t p : *seen) patterns.push_back(groups.pattern(p));
    pattern = join_patterns(patterns);
  }
  return AliveGroup{groups.type_name(g.type), std::move(pattern), callsites.frames(g.callsite),
                    count, bytes};
}

}  // namespace

void RunAnalyzer::record_skipped_teardown(const SnapshotIndex& index, std::string ended_by) {
  SkippedTeardown t;
  t.ended_by = std::move(ended_by);
  t.frame = index.snapshot().frame;
  t.sequence = index.snapshot().sequence;
  t.snapshot = index.snapshot().path;
  std::map<uint32_t, std::pair<uint64_t, uint64_t>> by_group;  // (count, bytes)
  for (size_t i = 0; i < index.size(); ++i) {
    if (!index.app_made(i) || index.attached(i)) continue;
    auto& g = by_group[index.group(i)];
    ++g.first;
    g.second = saturating_add(g.second, index.held_bytes(i));
    ++t.objects;
    t.bytes = saturating_add(t.bytes, index.held_bytes(i));
  }
  for (const auto& [group, v] : by_group) {
    t.alive.push_back(alive_group(groups_, callsites_, lifetimes_, group, v.first, v.second));
  }
  sort_alive(&t.alive);
  skipped_teardown_ = std::move(t);
}

void RunAnalyzer::add_exit_root_findings(std::vector<Finding>* findings) {
  // Objects another finding already explains (a group that grew, memory left orphaned) stay
  // in that finding's problem: a cause of their own, not part of the forgotten teardown.
  std::unordered_set<uint64_t> claimed;
  for (const Finding& f : *findings) {
    for (const auto& [id, bytes] : f.objects) claimed.insert(id);
  }
  for (ExitRoot& r : exit_roots_) {
    Hits h = std::move(r.root);
    std::map<uint32_t, std::pair<uint64_t, uint64_t>> by_group;  // (count, bytes)
    for (const ExitMember& m : r.members) {
      if (claimed.count(m.id) != 0) continue;
      auto& g = by_group[m.group];
      ++g.first;
      g.second = saturating_add(g.second, m.bytes);
      ++h.count;
      h.bytes = saturating_add(h.bytes, m.bytes);
      h.objects.emplace_back(m.id, m.bytes);
    }
    std::sort(h.objects.begin(), h.objects.end());
    h.retainers.emplace();  // the root holds them all: no retainer to name
    Finding f = make_finding(FindingKind::kLeakAtExit, r.group, std::move(h));
    for (const auto& [group, v] : by_group) {
      f.contents.push_back(alive_group(groups_, callsites_, lifetimes_, group, v.first, v.second));
    }
    sort_alive(&f.contents);
    f.examples_omitted = 0;
    f.message = undestroyed_root_message(f);
    findings->push_back(std::move(f));
  }
  exit_roots_.clear();
}

uint64_t RunAnalyzer::accumulation_rate(uint32_t group) const {
  if (!judged_ || accumulating_.count(group) == 0) return 0;
  auto it = group_series_.find(group);
  if (it == group_series_.end() || frames_.size() < first_point_ + 2) return 0;
  uint64_t first = 0, last = 0;
  for (const Point& p : it->second) {
    if (p.point == first_point_) first = p.live;
    if (p.point + 1 == frames_.size()) last = p.live;
  }
  const uint64_t span = frames_.back() - frames_[first_point_];
  if (last <= first || span == 0) return 0;
  const uint64_t rise = last - first;
  return rise > UINT64_MAX / 1000 ? UINT64_MAX / span : rise * 1000 / span;
}

void RunAnalyzer::note_incident(const Snapshot& snap) {
  static const std::pair<std::string_view, const char*> kErrors[] = {
      {format::name(format::Reason::kOutOfDeviceMemory), "VK_ERROR_OUT_OF_DEVICE_MEMORY"},
      {format::name(format::Reason::kOutOfHostMemory), "VK_ERROR_OUT_OF_HOST_MEMORY"},
      {format::name(format::Reason::kDeviceLost), "VK_ERROR_DEVICE_LOST"}};
  const std::string where = " at frame " + std::to_string(snap.frame) + " (snapshot #" +
                            std::to_string(snap.sequence) + ")";
  const std::string label = snap.label.value_or("");
  // A crash is said by the completeness check (RunReport::incomplete), which fails the gate.
  for (const auto& [reason, result] : kErrors) {
    if (snap.reason == reason) {
      incidents_.push_back(std::string(result) + (label.empty() ? "" : " from " + label) + where +
                           ": see what was alive then");
    }
  }
}

void RunAnalyzer::record_series(const SnapshotIndex& index) {
  const auto point = static_cast<uint32_t>(frames_.size());
  frames_.push_back(index.snapshot().frame);
  std::unordered_map<uint32_t, std::pair<uint64_t, uint64_t>> groups;
  std::vector<std::pair<uint64_t, uint64_t>> types(index.snapshot().type_names.size());
  for (size_t i = 0; i < index.size(); ++i) {
    auto& t = types[index.object(i).type];
    ++t.first;
    t.second = saturating_add(t.second, index.object(i).size);
    // Memory only one object is bound to is that object's bytes, not a group of its own.
    if (index.attached(i)) continue;
    auto& g = groups[index.group(i)];
    ++g.first;
    g.second = saturating_add(g.second, index.held_bytes(i));
  }
  for (const auto& [group, v] : groups) {
    group_series_[group].push_back(Point{point, v.first, v.second});
  }
  for (size_t t = 0; t < types.size(); ++t) {
    if (types[t].first == 0) continue;
    type_series_[index.snapshot().type_names[t]].push_back(
        Point{point, types[t].first, types[t].second});
  }
}

namespace {

// Lifetime groups are analysis groups split by attached state: group << 1 | attached.
uint32_t lifetime_key(uint32_t group, bool attached) {
  return group << 1 | (attached ? 1u : 0u);
}

// A snapshot's objects as the lifetimes count them, in id order: memory only one object is
// bound to in its own attached group with bytes 0 (they are that object's held bytes, as in
// the series). None: no objects.
auto lifetime_entries(const SnapshotIndex* index) {
  return [index](size_t k, LifetimeCollector::Entry* e) {
    const size_t i = index->by_id(k);
    const bool attached = index->attached(i);
    *e = {index->object(i).id, lifetime_key(index->group(i), attached),
          attached ? 0 : index->held_bytes(i)};
    return true;
  };
}

}  // namespace

void RunAnalyzer::record_lifetimes(const SnapshotIndex& index, size_t report_index) {
  const Snapshot& snap = index.snapshot();
  std::vector<uint32_t> pattern_of_name(snap.names.size(), kNoPattern);
  const auto pattern = [&](size_t k) {
    const Object& o = index.object(index.by_id(k));
    if (o.name == kNoName) return kNoPattern;
    uint32_t& p = pattern_of_name[static_cast<size_t>(o.name)];
    if (p == kNoPattern) {
      p = groups_.pattern_id(name_pattern(snap.names[static_cast<size_t>(o.name)]));
    }
    return p;
  };
  // last_index_ is still the previous snapshot taken during the run: the one added before.
  const SnapshotIndex* prev = last_index_.get();
  lifetimes_.add(LifetimeSnapshot{report_index, snap.sequence, snap.frame, snap.time_ms,
                                  snap.reason, snap.label},
                 prev ? prev->size() : 0, lifetime_entries(prev), index.size(),
                 lifetime_entries(&index), pattern);
}

void RunAnalyzer::finish_lifetimes() {
  std::vector<uint32_t> keep;
  for (const Finding& f : report_.findings) {
    if (f.lifetime_group) keep.push_back(lifetime_key(*f.lifetime_group, false));
  }
  std::vector<uint32_t> analysis_groups;
  const SnapshotIndex* last = last_index_.get();
  report_.lifetimes = lifetimes_.finish(options_.max_lifetime_cells, keep, &analysis_groups,
                                        last ? last->size() : 0, lifetime_entries(last));
  for (size_t i = 0; i < analysis_groups.size(); ++i) {
    const GroupTable::Group& g = groups_.at(analysis_groups[i] >> 1);
    LifetimeGroup& out = report_.lifetimes.groups[i];
    out.object_type = groups_.type_name(g.type);
    out.attached = (analysis_groups[i] & 1) != 0;
    if (g.pattern != kNoPattern) {
      out.name_pattern = groups_.pattern(g.pattern);
    } else if (const std::vector<uint32_t>* seen = lifetimes_.patterns_of(analysis_groups[i])) {
      std::vector<std::string> patterns;
      for (uint32_t p : *seen) patterns.push_back(groups_.pattern(p));
      out.name_pattern = join_patterns(patterns);
    }
    out.callsite = callsites_.frames(g.callsite);
  }
  for (Finding& f : report_.findings) {
    if (!f.lifetime_group) continue;
    auto it = std::lower_bound(analysis_groups.begin(), analysis_groups.end(),
                               lifetime_key(*f.lifetime_group, false));
    f.lifetime_group = static_cast<uint32_t>(it - analysis_groups.begin());
  }
}

Finding RunAnalyzer::make_finding(FindingKind kind, uint32_t group, Hits&& h) {
  const GroupTable::Group& g = groups_.at(group);
  Finding f;
  f.kind = kind;
  f.object_type = groups_.type_name(g.type);
  f.count = h.count;
  f.bytes = h.bytes;
  std::sort(h.names.begin(), h.names.end(), natural_less);
  const size_t shown = std::min<size_t>(h.names.size(), options_.max_names);
  f.names.assign(h.names.begin(), h.names.begin() + static_cast<std::ptrdiff_t>(shown));
  f.names_omitted = h.names.size() - shown;
  f.name_pattern =
      g.pattern != kNoPattern ? groups_.pattern(g.pattern) : join_patterns(h.primary_names);
  if (h.primary_names.size() == 1) f.display_name = h.primary_names.front();
  f.callsite = callsites_.frames(g.callsite);
  f.callsite_source = g.callsite == kNoCallsiteId ? "none" : "object";
  f.frames.first = h.first_frame == UINT64_MAX ? 0 : h.first_frame;
  f.frames.last = h.last_frame;
  f.frames.snapshot = h.snapshot_frame;
  f.frames.last_used = h.last_used;
  f.frames.group_last_used = h.group_last_used;
  f.examples = std::move(h.examples);
  f.examples_omitted = h.count > f.examples.size() ? h.count - f.examples.size() : 0;
  for (auto& [key, r] : h.related) {
    f.related.push_back(r);
    auto sites = h.related_callsites.find(key);
    if (sites == h.related_callsites.end()) continue;
    // The call site that made most of them; on a tie the first by its frames (never by its id,
    // which is the order call sites were first seen in).
    std::pair<uint32_t, uint64_t> top{kNoCallsiteId, 0};
    for (const auto& [site, n] : sites->second) {
      if (site == kNoCallsiteId || n < top.second) continue;
      if (n == top.second && !frames_less(callsites_.frames(site), callsites_.frames(top.first)))
        continue;
      top = {site, n};
    }
    if (top.second > 0) {
      f.related.back().callsite = callsites_.frames(top.first);
      f.related.back().callsite_count = top.second;
    }
  }
  f.chains = std::move(h.chains);
  f.objects = std::move(h.objects);
  f.lifetime_group = group;  // an analysis group until finish_lifetimes() maps it
  f.chains_omitted = h.chains_total > f.chains.size() ? h.chains_total - f.chains.size() : 0;
  if (h.retainers) {
    f.retainers = std::move(*h.retainers);
    f.retainers_omitted = h.retainers_omitted;
  } else if (last_index_) {
    // The finding's own objects, not their whole group: an orphaned allocation is not held by
    // the pool that holds the group's one allocation in use.
    if (!retainers_) retainers_ = std::make_unique<Retainers>(*last_index_);
    std::vector<size_t> mine;
    mine.reserve(f.objects.size());
    for (const auto& [id, bytes] : f.objects) {
      const size_t i = last_index_->find(static_cast<int64_t>(id));
      if (i != kNotFound) mine.push_back(i);
    }
    f.retainers = retainers_->of(mine, options_.max_examples, &f.retainers_omitted);
  }
  f.pid = report_.pid;
  f.snapshot = h.snapshot_path;
  f.vuids = vuids_for(kind, f.object_type, h.snapshot_reason);
  const Thresholds& t = options_.thresholds;
  switch (kind) {
    case FindingKind::kLeakAtExit:
      f.message = leak_message(f, h);
      break;
    case FindingKind::kRetained:
      f.message = retained_message(f, h, t);
      f.heuristic = true;
      break;
    case FindingKind::kStaleView:
      f.message = stale_message(f, h, t);
      if (h.stale_target) f.stacks = stale_stacks(f, *h.stale_target);
      // A view of a destroyed object is seen; one that pins a retained object is judged.
      f.heuristic = h.stale_dangling == 0;
      break;
    case FindingKind::kOrphanedMemory:
      f.message = orphaned_message(f, h, t);
      f.heuristic = true;
      break;
    case FindingKind::kGrowth:
      f.heuristic = true;
      break;
    default:
      break;
  }
  return f;
}

std::vector<LabeledStack> RunAnalyzer::stale_stacks(const Finding& f, const StaleTarget& t) {
  LabeledStack view{"view created here", f.callsite, {t.referrer}, ""};
  if (f.callsite.empty()) view.note = "stack not recorded";
  LabeledStack target{"target destroyed here",
                      callsites_.frames(t.destroy_callsite),
                      {t.target},
                      "at frame " + std::to_string(t.destroyed_frame)};
  if (t.destroy_callsite == kNoCallsiteId)
    target.note +=
        "; stack not recorded (destroy_callstacks was off: vkleak run --destroy-callstacks records "
        "them)";
  return {std::move(view), std::move(target)};
}

void RunAnalyzer::judge_accumulation_of_groups() {
  const Thresholds& t = options_.thresholds;
  first_point_ = 0;
  while (first_point_ < frames_.size() && frames_[first_point_] < t.warmup_frames) ++first_point_;
  const size_t points = frames_.size() - first_point_;
  judged_ = points >= std::max<uint32_t>(t.growth_min_snapshots, 2);
  if (!judged_) {
    report_.accumulation_judged = false;
    report_.notes.push_back(
        "growth, retained objects, views that pin them and orphaned memory not judged: " +
        std::to_string(points) + " snapshot(s) taken during the run after the warm-up (frame " +
        std::to_string(t.warmup_frames) + "), " + std::to_string(t.growth_min_snapshots) +
        " needed to see objects accumulate; not enough of the run seen to judge, run longer or "
        "snapshot more often (" +
        periodic_snapshots_hint(frame_counting_) + ")");
    return;
  }
  // When the objects alive at the last snapshot were created, per group. Descriptor sets are
  // judged as every other object where they are their own unit: in pools made to free sets one
  // by one (FREE_DESCRIPTOR_SET_BIT) or seen doing it (files of older layers). Elsewhere the pool
  // is the unit (Qt releases sets to await their pool's reset, a WebGPU implementation allocates
  // every set of a pool up front), and its group is judged.
  std::unordered_map<uint32_t, std::vector<uint64_t>> created;
  std::unordered_set<uint32_t> pool_is_the_unit;
  std::unordered_map<uint32_t, std::set<uint32_t>> pools_of_group;  // their pools' groups
  if (last_index_) {
    for (size_t i = 0; i < last_index_->size(); ++i) {
      if (last_index_->attached(i)) continue;
      created[last_index_->group(i)].push_back(last_index_->object(i).frame);
      if (is_set_in_pool(*last_index_, i) && !sets_are_their_own_unit(*last_index_, i)) {
        pool_is_the_unit.insert(last_index_->group(i));
        pools_of_group[last_index_->group(i)].insert(last_index_->group(pool_of(*last_index_, i)));
      }
    }
  }
  // Pools only ever added since the warm-up, one at least: an allocator that grew, if only by
  // the one or two steps of a working set finding its size (Qt's pools, reset and kept, do not).
  const auto pools_were_added = [&](const std::set<uint32_t>& pool_groups) {
    for (uint32_t pools : pool_groups) {
      const auto it = group_series_.find(pools);
      if (it == group_series_.end()) continue;
      std::vector<uint64_t> live(frames_.size(), 0);
      for (const Point& p : it->second) live[p.point] = p.live;
      bool fell = false;
      for (size_t k = first_point_ + 1; k < live.size(); ++k) fell |= live[k] < live[k - 1];
      if (!fell && first_point_ < live.size() && live.back() > live[first_point_]) return true;
    }
    return false;
  };
  const std::vector<uint64_t> frames(frames_.begin() + static_cast<std::ptrdiff_t>(first_point_),
                                     frames_.end());
  for (const auto& [group, series_points] : group_series_) {
    if (pool_is_the_unit.count(group) != 0) {
      if (pools_were_added(pools_of_group[group]) && dangling_sets_accumulate(group, frames))
        dangling_accumulating_.insert(group);
      continue;
    }
    std::vector<uint64_t> live(frames_.size(), 0);
    for (const Point& p : series_points) live[p.point] = p.live;
    live.erase(live.begin(), live.begin() + static_cast<std::ptrdiff_t>(first_point_));
    const AccumulationVerdict v =
        judge_accumulation(live, kept_series(frames, std::move(created[group])), t);
    if (v.accumulating) accumulating_.emplace(group, v);
  }
}

void RunAnalyzer::add_growth_findings(std::vector<Finding>* findings) {
  const size_t first_point = first_point_;
  struct Candidate {
    uint32_t group;
    Series series;
    GrowthVerdict live;
  };
  std::vector<Candidate> growing;
  // (growth in bytes, growth in count) -> group and its series, for the HTML report.
  std::vector<std::pair<std::pair<int64_t, int64_t>, std::pair<uint32_t, Series>>> by_growth;
  for (const auto& [group, series_points] : group_series_) {
    Series s;
    s.frames = frames_;
    s.live.assign(frames_.size(), 0);
    s.bytes.assign(frames_.size(), 0);
    for (const Point& p : series_points) {
      s.live[p.point] = p.live;
      s.bytes[p.point] = p.bytes;
    }
    if (frames_.size() >= first_point + 2) {
      const auto grew = [&](const std::vector<uint64_t>& v) {
        return saturating_delta(v[first_point], v.back());
      };
      if (grew(s.bytes) > 0 || grew(s.live) > 0) {
        by_growth.push_back({{grew(s.bytes), grew(s.live)}, {group, s}});
      }
    }
    auto acc = accumulating_.find(group);
    if (acc == accumulating_.end()) continue;
    const std::vector<uint64_t> live(s.live.begin() + static_cast<std::ptrdiff_t>(first_point),
                                     s.live.end());
    // Warm-up that levels off and is released: a working set (its members, or the children
    // of its pools, are used again and again) growing ever more slowly, freed at teardown.
    const std::vector<uint64_t> frames(frames_.begin() + static_cast<std::ptrdiff_t>(first_point),
                                       frames_.end());
    const bool in_use = reuse_.reused(group) || reuse_.in_reused_pool(group);
    const bool released = saw_teardown_ && at_teardown_.count(group) == 0;
    if (in_use && released && decelerating(frames, live)) continue;
    growing.push_back(Candidate{group, std::move(s), acc->second.floor});
  }

  // The fastest-growing groups, whose series the HTML report draws.
  std::sort(by_growth.begin(), by_growth.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second.first < b.second.first;
  });
  if (by_growth.size() > options_.series_groups) by_growth.resize(options_.series_groups);

  // Names, examples and memory of those groups, from the last snapshot of the run.
  std::unordered_map<uint32_t, Hits> described;
  if (last_index_ && (!growing.empty() || !by_growth.empty())) {
    std::unordered_set<uint32_t> wanted;
    for (const Candidate& c : growing) wanted.insert(c.group);
    for (const auto& entry : by_growth) wanted.insert(entry.second.first);
    HitCollector hits(*last_index_, options_.max_examples);
    for (size_t i = 0; i < last_index_->size(); ++i) {
      if (last_index_->attached(i) || !wanted.count(last_index_->group(i))) continue;
      // Its bytes as the series counts them: what joins it to the group's other findings.
      HitCollector::Pending& entry = hits.add(last_index_->group(i), i, last_index_->held_bytes(i));
      for (size_t m : last_index_->attached_memory(i)) {
        hits.relate(&entry, "memory", m, last_index_->object(m).size);
      }
    }
    described = hits.finish();
  }
  for (const auto& entry : by_growth) {
    const auto& [group, series] = entry.second;
    const GroupTable::Group& g = groups_.at(group);
    GroupSeries gs;
    gs.object_type = groups_.type_name(g.type);
    gs.name_pattern = g.pattern != kNoPattern ? groups_.pattern(g.pattern)
                                              : join_patterns(described[group].primary_names);
    const std::vector<Frame>& frames = callsites_.frames(g.callsite);
    if (!frames.empty()) {
      gs.function = inlined_function_chain(frames);
      if (gs.function.empty()) gs.function = frames.front().text;
    }
    gs.live = series.live;
    gs.bytes = series.bytes;
    report_.series.groups.push_back(std::move(gs));
  }
  for (Candidate& c : growing) {
    Hits h = std::move(described[c.group]);
    const size_t last = c.series.frames.size() - 1;
    h.count = c.series.live[last];
    h.bytes = c.series.bytes[last];
    Finding f = make_finding(FindingKind::kGrowth, c.group, std::move(h));
    f.frames.first = c.series.frames[first_point];
    f.frames.last = c.series.frames[last];
    f.frames.last_used.reset();
    f.series = std::move(c.series);
    f.message = growth_message(f, first_point, c.live);
    findings->push_back(std::move(f));
  }
}

void RunAnalyzer::judge_last_snapshot(std::vector<Finding>* findings) {
  if (!last_index_) return;
  const SnapshotIndex& index = *last_index_;
  // The evidence a heuristic kind needs for an object: its group accumulates over the run (for
  // sets allocated with their pool: its sets that point at destroyed objects do), or the object
  // outlived its device.
  std::vector<uint8_t> evidence(index.size(), 0);
  for (size_t i = 0; i < index.size(); ++i) {
    evidence[i] = (judged_ && (accumulating_.count(index.group(i)) != 0 ||
                               dangling_accumulating_.count(index.group(i)) != 0)) ||
                  outlived_.count(index.object(i).id) != 0;
  }
  // Pools in steady use: a member used again from one snapshot to the next, or in use now. Their
  // idle members wait their turn (zink's barrier command buffer beside the main one).
  std::unordered_set<int64_t> busy_pools;
  for (size_t i = 0; i < index.size(); ++i) {
    if (!index.app_made(i) || !is_pool_child(index, i)) continue;
    const int64_t pool = index.object(i).parent;
    if (reuse_.pool_reused(pool) || index.object(i).in_flight ||
        index.idle(i) < options_.thresholds.min_frames_unused) {
      busy_pools.insert(pool);
    }
  }
  // Retained, judged once for the whole run: superseded and idle at the end, in a group that
  // piles up, and neither a ring's member (its group's members came back into use after being
  // idle) nor waiting in a busy pool, unless it outlived its device.
  RetainedMarks marks = mark_retained(index, options_.thresholds);
  for (size_t i = 0; i < index.size(); ++i) {
    if (!marks.retained[i]) continue;
    const bool outlived = outlived_.count(index.object(i).id) != 0;
    const bool waiting = reuse_.reused(index.group(i)) ||
                         (is_pool_child(index, i) && busy_pools.count(index.object(i).parent));
    if (!evidence[i] || (waiting && !outlived)) marks.retained[i] = 0;
  }
  // What stale_view does not judge (rules.h: kOnFreeList, kDanglingUnjudged, kUnpinnable): the
  // sets of an engine's free list (rewritten later, not piling up) wait to be handed out again,
  // pinning nothing; a descriptor set in its pool dangles with the evidence of every heuristic
  // kind only (engines that free sets a pool at a time leave the released ones dangling until
  // the pool is reset), where its pools' accumulation counts for sets allocated up front (the
  // pool is the unit); and an object that outlived its device is a leak of its own, which nothing
  // pins (a view of a leaked image is part of that leak).
  // Allocated in the frame its pool was made (every set of the pool up front), in a pool whose
  // group accumulates.
  const auto allocated_up_front_with_evidence = [&](size_t i) {
    return is_set_allocated_with_its_pool(index, i) && evidence[pool_of(index, i)];
  };
  std::unordered_map<uint32_t, bool> recycled;
  std::vector<uint8_t> exempt(index.size(), 0);
  for (size_t i = 0; i < index.size(); ++i) {
    const uint32_t g = index.group(i);
    auto it = recycled.find(g);
    if (it == recycled.end())
      it = recycled.emplace(g, stale_recycling_.recycled(g, options_.thresholds)).first;
    if (it->second) exempt[i] |= kOnFreeList;
    if (is_set_in_pool(index, i) && !evidence[i] && !allocated_up_front_with_evidence(i))
      exempt[i] |= kDanglingUnjudged;
    if (outlived_.count(index.object(i).id) != 0) exempt[i] |= kUnpinnable;
  }
  std::vector<uint8_t> referrers;
  GroupHits stale = find_stale_views(index, marks, exempt, options_, &referrers);
  GroupHits retained = collect_retained(index, marks, referrers, options_);
  GroupHits orphaned = find_orphaned_memory(index, evidence, options_);
  for (auto& [group, h] : retained) {
    findings->push_back(make_finding(FindingKind::kRetained, group, std::move(h)));
  }
  for (auto& [group, h] : stale) {
    findings->push_back(make_finding(FindingKind::kStaleView, group, std::move(h)));
    for (const Chain& c : findings->back().chains) report_.series.chains.push_back(c);
  }
  for (auto& [group, h] : orphaned) {
    findings->push_back(make_finding(FindingKind::kOrphanedMemory, group, std::move(h)));
  }
}

RunReport RunAnalyzer::finish() {
  std::vector<Finding> findings;
  if (std::string note = frame_counting_note(frame_counting_); !note.empty())
    report_.notes.push_back(std::move(note));
  judge_accumulation_of_groups();
  add_growth_findings(&findings);
  for (auto& [group, h] : leaks_) {
    findings.push_back(make_finding(FindingKind::kLeakAtExit, group, std::move(h)));
  }
  judge_last_snapshot(&findings);
  add_exit_root_findings(&findings);
  for (Finding& f : findings) {
    if (f.lifetime_group) f.accumulation = accumulation_rate(*f.lifetime_group);
  }
  for (EventRule::Group& g : events_.take()) {
    Finding f;
    f.kind = g.kind;
    f.object_type = g.type;
    f.count = g.count;
    std::sort(g.names.begin(), g.names.end(), natural_less);
    const size_t shown = std::min<size_t>(g.names.size(), options_.max_names);
    f.names.assign(g.names.begin(), g.names.begin() + static_cast<std::ptrdiff_t>(shown));
    f.names_omitted = g.names.size() - shown;
    f.name_pattern = g.pattern;
    if (g.names.size() == 1) f.display_name = g.names.front();
    if (g.callsite != UINT32_MAX) f.callsite = callsites_.frames(g.callsite);
    f.callsite_source = g.callsite != UINT32_MAX ? g.callsite_source : "none";
    f.frames.first = g.first_frame;
    f.frames.last = g.last_frame;
    f.events = std::move(g.examples);
    f.events_omitted = g.count - f.events.size();
    f.pid = report_.pid;
    f.snapshot = g.snapshot;
    for (const std::string& reason : g.reasons.empty() ? std::vector<std::string>{""} : g.reasons)
      for (std::string& v : vuids_for(f.kind, f.object_type, reason))
        if (std::find(f.vuids.begin(), f.vuids.end(), v) == f.vuids.end())
          f.vuids.push_back(std::move(v));
    f.message = event_message(f, g.headline);
    for (EventRule::Group::Stack& st : g.stacks) {
      LabeledStack out{std::move(st.label), {}, std::move(st.lines), std::move(st.note)};
      if (st.creation_fallback) {
        // The event did not record the creation: the group's call site, found as before.
        out.frames = f.callsite;
        out.note = f.callsite_source == "same_name"
                       ? "not recorded with the event: the call site of a later object with the "
                         "same name"
                   : f.callsite.empty()
                       ? "not recorded with the event, and no snapshot saw the object"
                       : "not recorded with the event: the object's call site in a snapshot";
      } else {
        out.frames = callsites_.frames(st.callsite);
      }
      f.stacks.push_back(std::move(out));
    }
    findings.push_back(std::move(f));
  }
  rank_findings(&findings);
  report_.findings = std::move(findings);
  assign_problems(&report_);
  finish_lifetimes();

  report_.series.frames = frames_;
  for (const auto& [type, points] : type_series_) {
    TypeSeries ts;
    ts.type = type;
    ts.live.assign(frames_.size(), 0);
    ts.bytes.assign(frames_.size(), 0);
    for (const Point& p : points) {
      ts.live[p.point] = p.live;
      ts.bytes[p.point] = p.bytes;
    }
    report_.series.types.push_back(std::move(ts));
  }
  std::sort(report_.series.types.begin(), report_.series.types.end(),
            [](const TypeSeries& a, const TypeSeries& b) { return a.type < b.type; });

  // Error snapshots are rate limited; the counts say how often the errors came.
  for (const auto& [count, result] :
       {std::pair{error_results_.out_of_device_memory, "VK_ERROR_OUT_OF_DEVICE_MEMORY"},
        std::pair{error_results_.out_of_host_memory, "VK_ERROR_OUT_OF_HOST_MEMORY"},
        std::pair{error_results_.device_lost, "VK_ERROR_DEVICE_LOST"}}) {
    if (count > 0) {
      incidents_.push_back(format_count(count) + (count == 1 ? " call" : " calls") + " returned " +
                           result + " in this run");
    }
  }
  report_.notes.insert(report_.notes.begin(), incidents_.begin(), incidents_.end());
  report_.driver_memory = driver_memory_.finish();
  for (const DeviceMemoryView& v : report_.driver_memory) {
    if (v.unexplained) report_.notes.push_back(unexplained_growth_note(v));
  }
  Completeness completeness = completeness_.finish();
  report_.incomplete = std::move(completeness.problems);
  report_.crash_signal = std::move(completeness.crash_signal);
  for (std::string& warning : completeness.warnings) report_.notes.push_back(std::move(warning));
  report_.skipped_teardown = std::move(skipped_teardown_);
  if (report_.skipped_teardown && report_.crash_signal.empty()) {
    const SkippedTeardown& t = *report_.skipped_teardown;
    report_.notes.push_back(skipped_teardown_note(t));
  }
  if (!saw_teardown_ && !saw_exit_ && report_.crash_signal.empty()) {
    report_.notes.push_back(
        "leaks at exit not checked: no device_destroy, instance_destroy or exit snapshot (did "
        "the application crash or is it still running?)");
  }
  if (degraded_) {
    report_.notes.push_back("the layer's tracking was degraded (out of memory): counts may be low");
  }
  if (events_dropped_ > 0) {
    report_.notes.push_back(format_count(events_dropped_) +
                            " events were dropped by the layer (its event buffer was full)");
  }
  if (events_.duplicate_handles() > 0) {
    report_.notes.push_back(format_count(events_.duplicate_handles()) +
                            " duplicate handles were returned by the driver (counted, not errors)");
  }
  // A stripped program says why its frames are module+offset, once, not in every frame. Paths
  // go in as they are: the renderers escape notes (shared/escape.h).
  std::string debug_dirs;
  for (const std::string& dir : debug_file_directories())
    debug_dirs += (debug_dirs.empty() ? "" : ", ") + display_cut(dir);
  for (const auto& [module, sentence] : callsites_.modules_without_symbols()) {
    report_.notes.push_back(sentence +
                            " (a stripped build? its debug file is looked up by build-id under " +
                            (debug_dirs.empty() ? "no directory" : debug_dirs) + ")");
  }
  retainers_.reset();
  last_index_.reset();
  last_.reset();
  return std::move(report_);
}

}  // namespace vkleak::analysis
