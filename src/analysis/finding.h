// What the analysis reports: findings, one per kind and group of objects, and the series the HTML
// report draws. The definitions of the kinds are in FINDINGS.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

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
inline constexpr FindingKind kAllKinds[] = {
    FindingKind::kLeakAtExit,    FindingKind::kGrowth,         FindingKind::kRetained,
    FindingKind::kStaleView,     FindingKind::kOrphanedMemory, FindingKind::kDestroyedInFlight,
    FindingKind::kInvalidDestroy};

// "leak_at_exit", "growth", ...
const char* kind_name(FindingKind kind);
std::optional<FindingKind> kind_from_name(const std::string& name);
// One sentence: what the kind means.
const char* kind_description(FindingKind kind);
// Whether a finding of this kind is an error (a bug for sure) or a warning (a likely leak).
bool kind_is_error(FindingKind kind);

// One frame of a symbolized creation call site.
struct Frame {
  std::string text;      // "function (file:line)", or module+offset when unknown
  std::string function;  // empty when unknown
  std::string file;      // empty when unknown
  int line = 0;
  std::string module;  // file name of the module, empty when unknown
  // Inlined into the next frame (no call of its own): line is where that one "called" it.
  bool inlined = false;
};

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
};

// One step of a retention chain: referrer -> referenced -> ... -> memory.
struct ChainLink {
  uint64_t id = 0;
  std::string type;
  std::optional<std::string> name;
  std::string state;  // "live", "retained", "destroyed"
  std::optional<uint64_t> destroyed_frame;
  uint64_t bytes = 0;  // for the last resource: what it holds
};
struct Chain {
  std::vector<ChainLink> links;
  uint64_t bytes = 0;  // what the chain keeps alive
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
  std::vector<Chain> chains;  // stale_view: some of them
  uint64_t chains_omitted = 0;
  std::vector<EventExample> events;  // destroyed_in_flight, invalid_destroy
  uint64_t events_omitted = 0;
  // destroyed_in_flight, invalid_destroy (from the group's first event) and stale_view (of a
  // destroyed target): the stacks of the misuse, in the order they are read.
  std::vector<LabeledStack> stacks;
  std::optional<Series> series;  // growth
  uint64_t pid = 0;
  std::string snapshot;  // the file the evidence is from (the last one for several)
  // Set by the gate: "new", "baseline" (in the baseline, not failing) or "suppressed"; empty
  // in a plain report.
  std::string status;
  std::string suppressed_by;  // the suppression rule, as written

  // The innermost application function ("" when unknown): with kind, type and name pattern the
  // identity of a finding across runs (see fingerprint()). When it was inlined, the inline
  // chain up to the function it was compiled into, outermost first ("draw > make_buffer"):
  // the helper alone would merge all its callers.
  std::string function() const;
  std::string fingerprint() const;
};

// The innermost frame's function and, while it was inlined, the functions it was inlined into,
// outermost first: "draw > make_buffer". Empty when the innermost frame has no function.
std::string inlined_function_chain(const std::vector<Frame>& callsite);

// Ranking: bytes, then count, descending; then kind and type for a stable order.
void rank_findings(std::vector<Finding>* findings);

// Identity of a finding for baselines: kind, type, innermost application function (with its
// inline chain), name pattern.
std::string make_fingerprint(const std::string& kind, const std::string& object_type,
                             const std::string& function, const std::string& name_pattern);

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

struct RunReport {
  uint64_t pid = 0;
  std::string executable;
  std::string frame_boundary;
  std::vector<SnapshotInfo> snapshots;
  std::vector<std::string> notes;  // what the analysis could not check, and why
  // Why the snapshots do not cover the whole run (empty: they do); a gate fails such a run.
  std::vector<std::string> incomplete;
  std::string crash_signal;       // "SIGSEGV" when the run crashed
  std::vector<Finding> findings;  // ranked
  RunSeries series;
};

}  // namespace vkleak::analysis
