#include <map>
#include <set>
#include <string_view>

#include "analysis/problems.h"
#include "core/hex.h"
#include "report/output.h"
#include "shared/escape.h"

namespace vkleak::report {

using namespace analysis;  // the model it renders

namespace {

using nlohmann::json;

template <typename T>
json opt(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

namespace keys = findings_keys;

json frame_json(const Frame& f) {
  return {{keys::kText, f.text},
          {keys::kFunction, f.function.empty() ? json(nullptr) : json(f.function)},
          {"file", f.file.empty() ? json(nullptr) : json(f.file)},
          {"line", f.file.empty() ? json(nullptr) : json(f.line)},
          {keys::kModule, f.module.empty() ? json(nullptr) : json(f.module)},
          {keys::kInlined, f.inlined}};
}

json series_json(const Series& s) {
  return {{"frames", s.frames}, {"live", s.live}, {"bytes", s.bytes}};
}

// A name longer than kDisplayChars code points is written whole once per finding (names first);
// where it comes again (display_name, examples, chains, events) it is cut as the reports show it.
class LongNames {
 public:
  explicit LongNames(const std::vector<std::string>& names) {
    for (const std::string& n : names) seen_.insert(n);
  }
  json operator()(const std::optional<std::string>& name) {
    return name ? (*this)(*name) : json(nullptr);
  }
  json operator()(const std::string& name) {
    if (name.size() <= kDisplayChars) return name;
    const std::string cut = display_cut(name);
    if (cut.size() == name.size() || seen_.insert(name).second) return name;
    return cut;
  }

 private:
  std::set<std::string_view> seen_;
};

json chain_json(const Chain& c, LongNames& long_names) {
  json links = json::array();
  for (const ChainLink& l : c.links) {
    json link = {{"id", l.id},
                 {"type", l.type},
                 {"name", long_names(l.name)},
                 {"state", std::string(name(l.state))},
                 {"bytes", l.bytes}};
    if (l.destroyed_frame) link["destroyed_frame"] = *l.destroyed_frame;
    links.push_back(std::move(link));
  }
  return {{"bytes", c.bytes}, {"links", std::move(links)}};
}

// A group of objects counted together (a root's contents, what a skipped teardown left alive).
json alive_json(const std::vector<AliveGroup>& groups) {
  json out = json::array();
  for (const AliveGroup& g : groups) {
    json frames = json::array();
    for (const Frame& frame : g.callsite) frames.push_back(frame_json(frame));
    out.push_back({{"type", g.type},
                   {"name_pattern", g.name_pattern},
                   {"callsite_frames", std::move(frames)},
                   {"count", g.count},
                   {"bytes", g.bytes}});
  }
  return out;
}

json finding_json(const Finding& f) {
  LongNames long_names(f.names);
  json callsite = json::array();
  json callsite_frames = json::array();
  for (const Frame& frame : f.callsite) {
    callsite.push_back(frame.text);
    callsite_frames.push_back(frame_json(frame));
  }
  json location = nullptr;
  if (const Frame* s = source_frame(f)) {
    location = {{"function", s->function.empty() ? json(nullptr) : json(s->function)},
                {"file", s->file},
                {"line", s->line}};
  }
  json frames = {{"first", f.frames.first}, {"last", f.frames.last}};
  if (f.frames.snapshot) frames["snapshot"] = *f.frames.snapshot;
  if (f.frames.last_used) frames["last_used"] = *f.frames.last_used;
  if (f.frames.group_last_used) frames["group_last_used"] = *f.frames.group_last_used;

  json examples = json::array();
  for (const ExampleObject& e : f.examples) {
    examples.push_back({{"id", e.id},
                        {"type", e.type},
                        {"handle", format_hex(e.handle)},
                        {"name", long_names(e.name)},
                        {"frame", e.frame},
                        {"bytes", e.bytes},
                        {"last_use_frame", opt(e.last_use_frame)}});
  }
  json related = json::array();
  for (const Related& r : f.related) {
    json site = json::array();
    for (const Frame& frame : r.callsite) site.push_back(frame.text);
    related.push_back({{"relation", r.relation},
                       {"type", r.type},
                       {"count", r.count},
                       {"bytes", r.bytes},
                       {"callsite", std::move(site)},
                       {"callsite_count", r.callsite_count}});
  }
  json chains = json::array();
  for (const Chain& c : f.chains) chains.push_back(chain_json(c, long_names));
  json retainers = json::array();
  for (const RetainerRoot& r : f.retainers) {
    json counts = json::array();
    for (const TypeTally& t : r.counts) counts.push_back({{"type", t.type}, {"count", t.count}});
    json root = nullptr;
    if (!r.shared) root = {{"id", r.id}, {"type", r.type}, {"name", long_names(r.name)}};
    json path = json::array();
    for (const ChainLink& l : r.path)
      path.push_back({{"id", l.id}, {"type", l.type}, {"name", long_names(l.name)}});
    retainers.push_back({{"root", std::move(root)},
                         {"objects", r.objects},
                         {"counts", std::move(counts)},
                         {"bytes", r.bytes},
                         {"path", std::move(path)}});
  }
  json events = json::array();
  for (const EventExample& e : f.events) {
    json submission = nullptr;
    if (e.submission_serial) {
      submission = {{"queue", *e.submission_queue},
                    {"serial", *e.submission_serial},
                    {"frame", *e.submission_frame}};
    }
    events.push_back({{"frame", e.frame},
                      {"object", opt(e.object)},
                      {"name", long_names(e.name)},
                      {"submission", submission},
                      {"path", e.path},
                      {"message", e.message}});
  }

  json stacks = json::array();
  for (const LabeledStack& st : f.stacks) {
    json stack_frames = json::array();
    for (const Frame& frame : st.frames) stack_frames.push_back(frame_json(frame));
    stacks.push_back({{"label", st.label},
                      {"frames", std::move(stack_frames)},
                      {"lines", st.lines},
                      {"note", st.note.empty() ? json(nullptr) : json(st.note)}});
  }

  json j = {{keys::kKind, kind_name(f.kind)},
            {"severity", kind_is_error(f.kind) ? "error" : "warning"},
            {"evidence", f.heuristic ? "heuristic" : "certain"},
            {"vuids", f.vuids},
            {keys::kObjectType, f.object_type},
            {"count", f.count},
            {"bytes", f.bytes},
            {"names", f.names},
            {"names_omitted", f.names_omitted},
            {keys::kNamePattern, f.name_pattern},
            {"display_name", f.display_name.empty() ? json(nullptr) : long_names(f.display_name)},
            {"callsite", std::move(callsite)},
            {keys::kCallsiteFrames, std::move(callsite_frames)},
            {"callsite_source", f.callsite_source},
            {"callsite_summary", f.callsite.empty() ? json(nullptr) : json(callsite_summary(f))},
            {keys::kFunction, f.function().empty() ? json(nullptr) : json(f.function())},
            {"location", std::move(location)},
            {"frames", std::move(frames)},
            {"message", f.message},
            {"examples", std::move(examples)},
            {"examples_omitted", f.examples_omitted},
            {"related", std::move(related)},
            {"contents", alive_json(f.contents)},
            {"chains_omitted", f.chains_omitted},
            {"chains", std::move(chains)},
            {"retainers", std::move(retainers)},
            {"retainers_omitted", f.retainers_omitted},
            {"events", std::move(events)},
            {"events_omitted", f.events_omitted},
            {"stacks", std::move(stacks)},
            {"pid", f.pid},
            {"snapshot", f.snapshot},
            {"fingerprint", f.fingerprint()}};
  if (f.series) j["series"] = series_json(*f.series);
  if (f.status != GateStatus::kNone) j["status"] = std::string(name(f.status));
  if (!f.suppressed_by.empty()) j["suppressed_by"] = f.suppressed_by;
  return j;
}

// The driver's view of each device's heaps beside the tracked bytes (analysis/driver_memory.h).
json driver_memory_json(const std::vector<DeviceMemoryView>& views) {
  json out = json::array();
  for (const DeviceMemoryView& v : views) {
    json heaps = json::array();
    for (const HeapSeries& h : v.heaps) {
      heaps.push_back({{"index", h.index},
                       {"size", h.size},
                       {"device_local", h.device_local},
                       {"usage", h.usage},
                       {"budget", h.budget}});
    }
    json unexplained = nullptr;
    if (v.unexplained) {
      const UnexplainedGrowth& g = *v.unexplained;
      unexplained = {{"from_frame", g.from_frame},     {"to_frame", g.to_frame},
                     {"usage_from", g.usage_from},     {"usage_to", g.usage_to},
                     {"tracked_from", g.tracked_from}, {"tracked_to", g.tracked_to},
                     {"bytes", g.unexplained}};
    }
    const std::string why = budget_unavailable_reason(v.status);
    out.push_back({{"device", v.device},
                   {"physical_device", v.physical_device},
                   {"status", std::string(format::name(v.status))},
                   {"enabled_by",
                    v.enabled_by ? json(std::string(format::name(*v.enabled_by))) : json(nullptr)},
                   {"unavailable", why.empty() ? json(nullptr) : json(why)},
                   {"frames", v.frames},
                   {"tracked", v.tracked},
                   {"heaps", std::move(heaps)},
                   {"too_few_points", v.too_few_points},
                   {"unexplained", std::move(unexplained)}});
  }
  return out;
}

json run_series_json(const RunSeries& s) {
  json types = json::array();
  for (const TypeSeries& t : s.types) {
    types.push_back({{"type", t.type}, {"live", t.live}, {"bytes", t.bytes}});
  }
  json groups = json::array();
  for (const GroupSeries& g : s.groups) {
    groups.push_back({{"object_type", g.object_type},
                      {"name_pattern", g.name_pattern},
                      {"function", g.function},
                      {"live", g.live},
                      {"bytes", g.bytes}});
  }
  json chains = json::array();
  LongNames long_names({});
  for (const Chain& c : s.chains) chains.push_back(chain_json(c, long_names));
  return {{"frames", s.frames},
          {"types", std::move(types)},
          {"groups", std::move(groups)},
          {"chains", std::move(chains)}};
}

}  // namespace

json findings_json(const ReportDocument& doc) {
  json runs = json::array();
  json findings = json::array();
  json problems = json::array();
  std::map<std::string, uint64_t> by_kind;
  for (FindingKind k : kAllKinds) by_kind[kind_name(k)] = 0;
  for (const RunReport& r : doc.runs) {
    json snapshots = json::array();
    for (const SnapshotInfo& s : r.snapshots) {
      snapshots.push_back({{"path", s.path},
                           {"sequence", s.sequence},
                           {"reason", s.reason},
                           {"frame", s.frame},
                           {"objects", s.objects}});
    }
    runs.push_back(
        {{"pid", r.pid},
         {"run_id", r.run_id.empty() ? json(nullptr) : json(r.run_id)},
         {"executable", r.executable.empty() ? json(nullptr) : json(r.executable)},
         {"frame_boundary", r.frame_boundary.empty() ? json(nullptr) : json(r.frame_boundary)},
         {"snapshots", std::move(snapshots)},
         {"notes", r.notes},
         {"complete", r.incomplete.empty()},
         {"incomplete", r.incomplete},
         {"crashed", r.crash_signal.empty() ? json(nullptr) : json(r.crash_signal)},
         {"skipped_teardown", r.skipped_teardown
                                  ? json{{"ended_by", r.skipped_teardown->ended_by},
                                         {"frame", r.skipped_teardown->frame},
                                         {"sequence", r.skipped_teardown->sequence},
                                         {"snapshot", r.skipped_teardown->snapshot},
                                         {"objects", r.skipped_teardown->objects},
                                         {"bytes", r.skipped_teardown->bytes},
                                         {"alive", alive_json(r.skipped_teardown->alive)}}
                                  : json(nullptr)},
         {"findings", r.findings.size()},
         {"series", run_series_json(r.series)},
         {"driver_memory", driver_memory_json(r.driver_memory)}});
    // Problems and findings refer to each other by their index in the document's lists.
    const size_t first_problem = problems.size();
    const size_t first_finding = findings.size();
    const std::vector<Problem> run_problem_list = run_problems(r);
    for (const Problem& p : run_problem_list) {
      json kinds = json::array();
      for (FindingKind k : p.kinds) kinds.push_back(kind_name(k));
      json members = json::array();
      for (size_t i : p.findings) members.push_back(first_finding + i);
      json problem = {{"pid", r.pid},
                      {"kinds", std::move(kinds)},
                      {"findings", std::move(members)},
                      {"count", p.count},
                      {"bytes", p.bytes}};
      if (p.status != GateStatus::kNone) problem["status"] = std::string(name(p.status));
      if (!p.suppressed_by.empty()) problem["suppressed_by"] = p.suppressed_by;
      if (!p.library.empty()) problem["library"] = p.library;
      problems.push_back(std::move(problem));
    }
    for (size_t i = 0; i < r.findings.size(); ++i) {
      const Finding& f = r.findings[i];
      json j = finding_json(f);
      j["problem"] = first_problem + (r.problems.empty() ? i : f.problem);
      findings.push_back(std::move(j));
      ++by_kind[kind_name(f.kind)];
    }
  }
  const ProblemTotals totals = problem_totals(doc);
  const Thresholds& t = doc.thresholds;
  json j = {{keys::kFormat, std::string(kFindingsFormat)},
            {keys::kVersion, kFindingsVersion},
            {"producer", {{"name", "vkleak"}, {"version", VKLEAK_VERSION}}},
            {"thresholds",
             {{"min_frames_unused", t.min_frames_unused},
              {"min_frames_stale", t.min_frames_stale},
              {"warmup", t.warmup_frames},
              {"growth_min_snapshots", t.growth_min_snapshots},
              {"growth_min_rises", t.growth_min_rises}}},
            {"summary",
             {{"findings", findings.size()},
              {"by_kind", by_kind},
              {"problems", totals.problems},
              {"objects", totals.objects},
              {"bytes", totals.bytes}}},
            {"runs", runs},
            // The first run's series at the top, for single-run documents (the usual case).
            {"series", doc.runs.empty() ? json(nullptr) : runs[0]["series"]},
            {keys::kFindings, std::move(findings)},
            {"problems", std::move(problems)}};
  if (doc.gate) {
    const GateSummary& g = *doc.gate;
    j["gate"] = {{"result", std::string(name(doc.gate_result()))},
                 {"new", g.new_findings},
                 {"incomplete_runs", g.incomplete_runs},
                 {"allow_incomplete", g.allow_incomplete},
                 {"skipped_teardown_runs", g.skipped_teardown_runs},
                 {"accept_skipped_teardown", g.accept_skipped_teardown},
                 {"baseline", g.baseline},
                 {"suppressed", g.suppressed},
                 {"max_findings", g.max_findings},
                 {"fail_on", g.fail_on}};
    json uses = json::array();
    for (const SuppressionUse& u : g.suppressions) {
      uses.push_back({{"rule", u.rule},
                      {"file", u.file},
                      {"line", u.line},
                      {"findings", u.findings},
                      {"objects", u.objects},
                      {"bytes", u.bytes}});
    }
    j["gate"]["suppressions"] = std::move(uses);
    // Known problems no run has any more: remove them with `vkleak baseline --update`.
    j["gate"]["fixed"] = g.fixed;
  }
  return j;
}

}  // namespace vkleak::report
