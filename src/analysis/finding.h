// What the analysis reports: findings, one per kind and group of objects, and the series the HTML
// report draws. The definitions of the kinds are in FINDINGS.md.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/driver_memory.h"
#include "analysis/findings_format.h"
#include "analysis/lifetimes.h"
#include "analysis/options.h"

namespace vkleak::analysis {

enum class FindingKind {
  kLeakAtExit,
  kGrowth,
  kRetained,
  kStaleView,
  kOrphanedMemory,
  kDestroyedInFlight,
  kInvalidDestroy,
};

// Everything the outputs say about a kind. kKinds is the one list of kinds: every output (text,
// JSON, Markdown, JUnit, SARIF, HTML) and the gate's --fail-on read it.
struct KindInfo {
  FindingKind kind;
  const char* name;         // "leak_at_exit": JSON, SARIF rule id, --fail-on, suppressions
  const char* title;        // "Leak at exit": HTML
  const char* summary;      // a few words: HTML tooltips
  const char* description;  // one sentence, what the kind means: JUnit, SARIF
  bool error;               // a bug for sure (error) or a likely leak (warning)
  int summary_rank;         // where summaries list it: growth first, misuse last
};
// In enum order (the ranking's tie-break, JUnit's test cases and SARIF's rules follow it).
inline constexpr KindInfo kKinds[] = {
    {FindingKind::kLeakAtExit, "leak_at_exit", "Leak at exit",
     "still alive when its device was destroyed",
     "Objects the application made that are still alive when their device or instance is "
     "destroyed, or at exit when it never tore down.",
     true, 4},
    {FindingKind::kGrowth, "growth", "Growth", "objects pile up: the live count keeps rising",
     "A group of objects (same type and creation call site) that piles up: its live count keeps "
     "rising over the run after the warm-up, with the objects it gains staying alive.",
     false, 0},
    {FindingKind::kRetained, "retained", "Retained",
     "alive but unused while newer objects from the same call site are",
     "Objects no submission has used for many frames while a newer object of their group is in "
     "use, piling up: superseded but never freed.",
     false, 1},
    {FindingKind::kStaleView, "stale_view", "Stale view",
     "a view or descriptor pins a resource that was replaced",
     "Views, descriptor sets or framebuffers that reference a destroyed object, or that pin a "
     "retained one.",
     true, 2},
    {FindingKind::kOrphanedMemory, "orphaned_memory", "Orphaned memory",
     "device memory with nothing bound for many frames",
     "Device memory with nothing bound to it and unused for many frames.", false, 3},
    {FindingKind::kDestroyedInFlight, "destroyed_in_flight", "Destroyed in flight",
     "destroyed while a submission may still use it",
     "An object destroyed or freed while a submission that uses it was not proven complete.", true,
     5},
    {FindingKind::kInvalidDestroy, "invalid_destroy", "Invalid destroy",
     "destroy of a handle that is not alive",
     "A destroy or free of a handle the layer does not know as alive (double destroy, wrong "
     "device, or a handle never created).",
     true, 6},
};

namespace kinds_detail {
constexpr bool in_enum_order() {
  for (size_t i = 0; i < std::size(kKinds); ++i) {
    if (static_cast<size_t>(kKinds[i].kind) != i) return false;
  }
  return true;
}
constexpr std::array<FindingKind, std::size(kKinds)> all_kinds() {
  std::array<FindingKind, std::size(kKinds)> out{};
  for (size_t i = 0; i < out.size(); ++i) out[i] = kKinds[i].kind;
  return out;
}
}  // namespace kinds_detail
static_assert(kinds_detail::in_enum_order(), "kKinds: one row per FindingKind, in enum order");
static_assert(static_cast<size_t>(FindingKind::kInvalidDestroy) + 1 == std::size(kKinds),
              "kKinds: a row for the last kind too");

inline constexpr std::array<FindingKind, std::size(kKinds)> kAllKinds = kinds_detail::all_kinds();

constexpr const KindInfo& kind_info(FindingKind kind) {
  return kKinds[static_cast<size_t>(kind)];
}
// "leak_at_exit", "growth", ...
constexpr const char* kind_name(FindingKind kind) {
  return kind_info(kind).name;
}
std::optional<FindingKind> kind_from_name(const std::string& name);
// One sentence: what the kind means.
constexpr const char* kind_description(FindingKind kind) {
  return kind_info(kind).description;
}
// Whether a finding of this kind is an error (a bug for sure) or a warning (a likely leak).
constexpr bool kind_is_error(FindingKind kind) {
  return kind_info(kind).error;
}
// Misuse events (destroyed_in_flight, invalid_destroy), not live objects.
constexpr bool kind_is_event(FindingKind kind) {
  return kind == FindingKind::kDestroyedInFlight || kind == FindingKind::kInvalidDestroy;
}
// Every kind's name, in enum order (e.g. for a command line's choices).
std::vector<std::string> kind_names();

// The fields a finding's fingerprint and identity are made of: one definition for the writer
// (Finding::key(), JSON's "fingerprint") and the baseline reader, which builds it from a baseline's
// fields (baseline.h).
struct FindingKey {
  std::string kind;  // kind_name(), or as a baseline spells it (perhaps a kind unknown here)
  std::string object_type;
  std::string where;  // callsite_identity() of the call site: its whole path
  std::string name_pattern;
  // callsite_shape() of the call site: where with the offsets of frames no symbol names left
  // out; equal to where when every frame has a function.
  std::string shape;

  // kind|type|where|name pattern.
  std::string fingerprint() const;
  // type|where|name pattern, without the kind; a misuse kind's (events, not objects: a double
  // destroy is never a facet of a leak) is its fingerprint.
  std::string identity() const;
  // identity() with shape for where: the weaker key the gate falls back on for a call site with
  // frames no symbol names (a stripped program rebuilt moves every offset); "" when every frame
  // of the call site has a function (then there is no weaker key: identity() is the whole story).
  std::string shape_identity() const;
};

// One frame of a symbolized creation call site.
struct Frame {
  std::string text;      // "function (file:line)", or module+offset when unknown
  std::string function;  // empty when unknown
  std::string file;      // empty when unknown
  int line = 0;
  std::string module;  // file name of the module, empty when unknown
  // Inlined into the next frame (no call of its own): line is where that one "called" it.
  bool inlined = false;
  std::string note;  // the symbolizer's, while a call site is built (never rendered)
};

// A frame of the C++ runtime's or a test framework's own code (std::, __gnu_cxx::, testing::,
// Catch::, doctest::, ...), by its function's qualified name: summaries leave such frames out
// and full stacks fold them, so that what a reader sees first is the program's own code.
bool is_support_frame(const Frame& frame);

struct ExampleObject {
  uint64_t id = 0;
  std::string type;
  uint64_t handle = 0;
  std::optional<std::string> name;
  uint64_t frame = 0;  // creation
  uint64_t bytes = 0;  // what it holds (its memory when only it keeps that alive)
  std::optional<uint64_t> last_use_frame;
};

// Objects that come with the finding's objects: memory only they keep alive, pool children.
struct Related {
  std::string relation;  // "memory" or "pool children"
  std::string type;
  uint64_t count = 0;
  uint64_t bytes = 0;
  // Pool children: the call site most of them were allocated at (innermost application frame
  // first; empty when not recorded), and how many of them it made.
  std::vector<Frame> callsite;
  uint64_t callsite_count = 0;
};

// One step of a retention chain: referrer -> referenced -> ... -> memory.
struct ChainLink {
  uint64_t id = 0;
  std::string type;
  std::optional<std::string> name;
  ChainState state = ChainState::kLive;
  std::optional<uint64_t> destroyed_frame;
  uint64_t bytes = 0;  // for the last resource: what it holds
};
struct Chain {
  std::vector<ChainLink> links;
  uint64_t bytes = 0;  // what the chain keeps alive
};

// Why some of a finding's objects are still alive: a root (an object nothing live references)
// whose references lead to them, and what only it keeps alive (dominator-style: every path from
// a root to those objects goes through it). shared: objects reachable from several roots.
struct TypeTally {
  std::string type;
  uint64_t count = 0;
};
struct RetainerRoot {
  bool shared = false;  // no single root: id, type and name are empty
  uint64_t id = 0;
  std::string type;
  std::optional<std::string> name;
  uint64_t objects = 0;           // how many of the finding's objects it keeps alive
  std::vector<TypeTally> counts;  // what it keeps alive (not itself), by count then type
  uint64_t bytes = 0;             // kept alive by it alone (itself included), each byte once
  std::vector<ChainLink> path;    // root > ... > one of the finding's objects (capped)
};

// One destroyed_in_flight / invalid_destroy event.
struct EventExample {
  uint64_t frame = 0;
  std::optional<uint64_t> object;
  std::optional<std::string> name;
  std::optional<uint64_t> submission_queue;
  std::optional<uint64_t> submission_serial;
  std::optional<uint64_t> submission_frame;
  std::vector<std::string> path;  // "bound in VkCommandBuffer \"frame.cmd.0\" (id 6)"
  std::string message;
};

// One stack of a misuse finding, as ASan shows its stacks: "destroyed here", "while in use by",
// "created here", ... (FINDINGS.md lists them per kind). frames: innermost first, empty when
// the stack was not recorded (note says why) or the label is not a call (lines say what).
struct LabeledStack {
  std::string label;
  std::vector<Frame> frames;
  std::vector<std::string> lines;  // what the label is about: the object, the submission, ...
  std::string note;                // e.g. why there are no frames, "" when none
};

// Objects of one group (type, call site, name pattern) counted together: what a root never
// destroyed holds (leak_at_exit at exit()), or what was alive when a process skipped its teardown.
struct AliveGroup {
  std::string type;
  std::string name_pattern;
  std::vector<Frame> callsite;  // innermost application frame first; empty when not recorded
  uint64_t count = 0;
  uint64_t bytes = 0;
};

struct Series {
  std::vector<uint64_t> frames;
  std::vector<uint64_t> live;
  std::vector<uint64_t> bytes;
};

// The frames a finding involves. first/last: the span of the evidence (creation frames of the
// objects, or the snapshots that show growth, or the events); the others when they apply.
struct Frames {
  uint64_t first = 0;
  uint64_t last = 0;
  std::optional<uint64_t> snapshot;         // the snapshot the objects were seen in
  std::optional<uint64_t> last_used;        // the latest use of any of the objects
  std::optional<uint64_t> group_last_used;  // retained: the newest use in the group
};

struct Finding {
  FindingKind kind = FindingKind::kLeakAtExit;
  // Judged from evidence gathered over the run (growth, retained, orphaned_memory, stale_view
  // that only pins retained objects), not seen for certain: ranked below certain findings.
  bool heuristic = false;
  std::string object_type;
  uint64_t count = 0;
  uint64_t bytes = 0;
  std::vector<std::string> names;  // sorted, distinct; at most AnalysisOptions::max_names
  uint64_t names_omitted = 0;
  std::string name_pattern;  // the group's names with digit runs as '*', "" when unnamed
  std::string display_name;  // the one name of the group's objects when they share one, else ""

  std::vector<Frame> callsite;  // innermost application frame first
  std::string callsite_source;  // "object", "same_name" (a later object's), or "none"
  Frames frames;
  std::string message;
  std::vector<ExampleObject> examples;
  uint64_t examples_omitted = 0;
  std::vector<Related> related;
  // leak_at_exit of an instance or device the program never destroyed before exit(): everything
  // alive under it, by group (most objects first), so one forgotten teardown is one finding.
  std::vector<AliveGroup> contents;
  std::vector<Chain> chains;  // stale_view: some of them
  uint64_t chains_omitted = 0;
  // Roots keeping the group's objects alive in the last snapshot taken during the run (by
  // bytes; none when nothing references them).
  std::vector<RetainerRoot> retainers;
  uint64_t retainers_omitted = 0;
  std::vector<EventExample> events;  // destroyed_in_flight, invalid_destroy
  uint64_t events_omitted = 0;
  // destroyed_in_flight, invalid_destroy (from the group's first event) and stale_view (of a
  // destroyed target): the stacks of the misuse, in the order they are read.
  std::vector<LabeledStack> stacks;
  std::optional<Series> series;  // growth
  // The validation layer's VUIDs for the same bug (vuids.h); none for kinds it cannot see.
  std::vector<std::string> vuids;
  uint64_t pid = 0;
  std::string snapshot;  // the file the evidence is from (the last one for several)
  // Set by the gate: new, baseline (in the baseline, not failing), suppressed or ignored (not a
  // kind of --fail-on); kNone in a plain report.
  GateStatus status = GateStatus::kNone;
  std::string suppressed_by;  // the suppression rule, as written
  // The problem it belongs to: its index in RunReport::problems (set by assign_problems).
  uint64_t problem = 0;
  // The objects counted in count and bytes, by id, with the bytes each was counted with
  // (stale_view: a pinned resource's bytes on its first referrer), sorted by id. Joins findings
  // about the same objects into one problem; no output lists it.
  std::vector<std::pair<uint64_t, uint64_t>> objects;
  // How fast its group accumulates (judge_accumulation): objects gained per 1000 frames over the
  // run after the warm-up, 0 when the group does not accumulate. Ranks it (rank_findings).
  uint64_t accumulation = 0;
  // Its group in RunReport::lifetimes.groups (the explorer links the two); none for misuse events.
  std::optional<uint32_t> lifetime_group;

  // The innermost application function ("" when unknown), JSON's "function". When it was
  // inlined, the inline chain up to the function it was compiled into, outermost first
  // ("draw > make_buffer"). The identity across runs (identity()) also holds the callers.
  std::string function() const;
  // The fields its fingerprint and identity are made of (FindingKey).
  FindingKey key() const;
  // key().fingerprint(): JSON's "fingerprint" for tools that list findings, the ranking's
  // tie-break; baselines match on identity().
  std::string fingerprint() const;
  // key().identity(): what the finding is about, whatever was judged of it. The gate's identity
  // of a problem across runs: the same objects judged as growth at one snapshot cadence and as
  // retained at another are one problem.
  std::string identity() const;
};

// Where objects were made, as the gate matches it across runs and builds: the whole path of the
// call site, never a suffix of it (a new caller of a shared helper, however far out, is a new
// problem), from the innermost frame out to main (the C runtime's start-up frames are no part of
// it), outermost first, " > " between frames: "main > capture_stats() > make_buffer(int)". Each
// frame is frame_identity(): its function where debug info or a symbol table names one (inline
// chains included, each inlined function a frame; whether it was inlined is not part of it, nor
// its line or its offset inside the function, which an edit elsewhere moves), else module+offset.
// Shared by Finding::key() and the baseline reader.
std::string callsite_identity(const std::vector<Frame>& callsite);
// callsite_identity() with each frame no symbol names as its module alone ("app+?"): the shape of
// the stack, which an unrelated rebuild of a stripped program keeps (baseline.h: the trade-off).
std::string callsite_shape(const std::vector<Frame>& callsite);

// The frames of a call site as the gate knows them, innermost first: each frame's function, else
// "module+0xoffset" ("?" outside any module); start-up frames and what is above main left out.
// The baseline file's "callsite".
std::vector<std::string> callsite_path(const std::vector<Frame>& callsite);
// A path (innermost first) as callsite_identity() spells it, and as callsite_shape() does.
std::string path_identity(const std::vector<std::string>& path);
std::string path_shape(const std::vector<std::string>& path);
// Whether a path's frame is one no symbol names ("module+0xoffset" or "?").
bool is_unnamed_frame(const std::string& frame);

// The innermost frame's function and, while it was inlined, the functions it was inlined into,
// outermost first: "draw > make_buffer". Empty when the innermost frame has no function.
std::string inlined_function_chain(const std::vector<Frame>& callsite);

// Call sites in the order of their frames' text: how ties between call sites are broken, never
// by an id (ids are the order call sites were first seen in).
bool frames_less(const std::vector<Frame>& a, const std::vector<Frame>& b);

// Ranking: certain findings before heuristic ones (a real leak never sits below a guess); then how
// fast their group accumulates (a thousand leaked semaphores above a static 2 MiB block), bytes,
// count, descending; then kind and fingerprint, then the whole call site and the objects, so that
// the order never depends on the order the rules found them in (issue 36).
void rank_findings(std::vector<Finding>* findings);

// A snapshot of the run as the report lists it.
struct SnapshotInfo {
  std::string path;
  uint64_t sequence = 0;
  std::string reason;
  uint64_t frame = 0;
  uint64_t objects = 0;
};

struct TypeSeries {
  std::string type;
  std::vector<uint64_t> live;
  std::vector<uint64_t> bytes;
};

struct GroupSeries {
  std::string object_type;
  std::string name_pattern;
  std::string function;
  std::vector<uint64_t> live;
  std::vector<uint64_t> bytes;
};

// For the HTML report: the run over time.
struct RunSeries {
  std::vector<uint64_t> frames;  // of the snapshots taken during the run (not teardown ones)
  std::vector<TypeSeries> types;
  std::vector<GroupSeries> groups;  // the fastest-growing groups
  std::vector<Chain> chains;        // the retention chains of the stale_view findings
};

// Findings about the same objects (a group that grew and leaked at exit): one problem with
// several kinds, its objects and bytes counted once (src/analysis/problems.h).
struct Problem {
  std::vector<size_t> findings;    // indices into RunReport::findings, in rank order
  std::vector<FindingKind> kinds;  // distinct, in the order of its findings
  bool heuristic = false;          // all its findings are
  uint64_t accumulation = 0;       // the fastest of its findings' (Finding::accumulation)
  // Made wholly inside this library, not by the program's own code (library_of(), problems.h);
  // "" otherwise.
  std::string library;
  uint64_t count = 0;  // distinct objects
  uint64_t bytes = 0;  // each object's bytes once
  // Set by the gate, as Finding::status: new (it fails the gate), baseline, suppressed or
  // ignored (no kind of it is in --fail-on); kNone in a plain report.
  GateStatus status = GateStatus::kNone;
  std::string suppressed_by;  // the rule that suppressed it, as written
};

// A process that ended without running its teardown (_exit(), quick_exit(), a fatal signal): what
// was alive then is listed, not judged (valgrind's "still reachable", LeakSanitizer's skipped
// check at _exit); the gate says teardown was not checked.
struct SkippedTeardown {
  std::string ended_by;  // "_exit()", "quick_exit()", "SIGSEGV"
  uint64_t frame = 0;
  uint64_t sequence = 0;  // of the snapshot that shows it
  std::string snapshot;
  uint64_t objects = 0;  // application objects alive then (attached memory counted with its owner)
  uint64_t bytes = 0;
  std::vector<AliveGroup> alive;  // by group, most objects first
};

struct RunReport {
  uint64_t pid = 0;
  std::string run_id;  // the layer's run id (16 hex digits); "" from layers before run ids
  std::string executable;
  std::string frame_boundary;
  std::vector<SnapshotInfo> snapshots;
  std::vector<std::string> notes;  // what the analysis could not check, and why
  // false: too few snapshots during the run to judge growth, retained, orphaned_memory and
  // pinning stale_view (a note says so).
  bool accumulation_judged = true;
  // Why the snapshots do not cover the whole run (empty: they do); a gate fails such a run.
  std::vector<std::string> incomplete;
  std::string crash_signal;                         // "SIGSEGV" when the run crashed
  std::optional<SkippedTeardown> skipped_teardown;  // set when the process skipped its teardown
  std::vector<Finding> findings;                    // ranked
  std::vector<Problem> problems;                    // ranked as findings are: bytes, then count
  RunSeries series;
  // Per device, the driver's heap budget and usage beside the tracked bytes (driver_memory.h).
  std::vector<DeviceMemoryView> driver_memory;
  RunLifetimes lifetimes;  // the HTML explorer's objects over time
};

// How often a suppression rule matched, as LeakSanitizer's "Suppressions used": a rule that
// matched nothing is listed with 0 (a typo, or a leak fixed since: either way worth a look).
struct SuppressionUse {
  std::string rule;  // as written
  std::string file;  // the suppression file
  int line = 0;
  uint64_t findings = 0;
  uint64_t objects = 0;
  uint64_t bytes = 0;
};

// What `vkleak gate` decided.
struct GateSummary {
  bool pass = true;  // no more new problems than allowed, and every run checked whole
  // Runs whose snapshots do not cover them (RunReport::incomplete); they fail the gate unless
  // allowed, with a result of their own.
  uint64_t incomplete_runs = 0;
  bool allow_incomplete = false;
  // Complete runs whose process skipped its teardown (_exit(), quick_exit()): leaks at exit were
  // not checked; they fail with a result of their own unless accepted.
  uint64_t skipped_teardown_runs = 0;
  bool accept_skipped_teardown = false;
  // Problems, not findings: one missing free judged as three kinds is one new problem.
  uint64_t new_findings = 0;                 // new problems
  uint64_t baseline = 0;                     // problems in the baseline
  uint64_t suppressed = 0;                   // problems suppressed
  uint64_t max_findings = 0;                 // new problems allowed
  std::vector<std::string> fail_on;          // kinds that count
  std::vector<SuppressionUse> suppressions;  // every rule, in file order
  // The baseline's problems that no run has any more (fixed, or no longer reached): their one-line
  // descriptions, in the baseline's order. The gate names them so that the baseline ratchets down
  // (`vkleak baseline --update` removes them); they do not change the verdict.
  std::vector<std::string> fixed;

  // Pass, fail (new problems over the limit), incomplete (a run not checked whole, unless
  // allowed; takes precedence: the findings of a run cut short are not its whole story) or
  // teardown not checked (a run that skipped its teardown, unless accepted; over pass and fail).
  GateResult result() const;
};

// What report and gate found: the model every output renders (src/report/).
struct ReportDocument {
  std::vector<RunReport> runs;
  Thresholds thresholds;
  std::optional<GateSummary> gate;

  size_t finding_count() const;
  // How outputs name a run: "pid 3068", and its run id too where another run of the document
  // has that pid (reruns, containers): "pid 3068, run 2ce5fe46".
  std::string run_label(const RunReport& run) const;
  // The gate's verdict (GateSummary::result()); kNone without a gate.
  GateResult gate_result() const;
};

}  // namespace vkleak::analysis
