// The findings document's contract (`vkleak report --format json`, `gate --json FILE`): its name
// and version, the keys a baseline reads back, and every enum of the model that the outputs spell,
// with its strings. The writer (report/output_json.cpp), the baseline reader (baseline.cpp) and
// every renderer spell them only through here, as the snapshot's writer and reader spell theirs
// through src/format/. The schema is src/schema/vkleak-findings.schema.json.
//
// Each enum's values index its kXxxNames array; name() and parse() convert (the helpers of
// src/format/snapshot_format.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string_view>

#include "format/snapshot_format.h"

namespace vkleak::analysis {

// --- Format and version ------------------------------------------------------------------------

inline constexpr std::string_view kFindingsFormat = "vkleak-findings";
// The version the writer writes and the newest a baseline may have.
inline constexpr int kFindingsVersion = 1;

// --- Keys a baseline reads (the writer writes them with the same names) -------------------------

namespace findings_keys {
inline constexpr const char* kFormat = "format";
inline constexpr const char* kVersion = "version";
inline constexpr const char* kFindings = "findings";
// Of a finding:
inline constexpr const char* kKind = "kind";
inline constexpr const char* kObjectType = "object_type";
inline constexpr const char* kCallsiteFrames = "callsite_frames";
inline constexpr const char* kFunction = "function";  // also of a frame
inline constexpr const char* kNamePattern = "name_pattern";
// Of a frame of callsite_frames:
inline constexpr const char* kText = "text";
inline constexpr const char* kModule = "module";
inline constexpr const char* kInlined = "inlined";
}  // namespace findings_keys

// --- Enums and their strings -------------------------------------------------------------------

// What the gate made of a finding or a problem ("status"; FINDINGS.md, "Gate, baselines and
// suppressions"). kNone in a plain report: no "status" key, no label.
enum class GateStatus : uint8_t { kNone, kNew, kBaseline, kSuppressed, kIgnored };
inline constexpr std::string_view kGateStatusNames[] = {"", "new", "baseline", "suppressed",
                                                        "ignored"};

// A link of a retention chain ("state" of a chain's link): alive, alive but retained (idle and
// superseded), or destroyed (a stale view's target).
enum class ChainState : uint8_t { kLive, kRetained, kDestroyed };
inline constexpr std::string_view kChainStateNames[] = {"live", "retained", "destroyed"};

// The gate's verdict ("result" of the document's "gate"): kNone without a gate; incomplete (a run
// not checked whole) takes precedence over the others, then teardown_not_checked (a process that
// ended in _exit() or quick_exit(): what it left alive was listed, not judged), then pass and fail.
enum class GateResult : uint8_t { kNone, kPass, kFail, kIncomplete, kTeardownNotChecked };
inline constexpr std::string_view kGateResultNames[] = {"", "pass", "fail", "incomplete",
                                                        "teardown_not_checked"};

constexpr std::string_view name(GateStatus v) {
  return format::detail::name_at(static_cast<size_t>(v), kGateStatusNames);
}
constexpr std::string_view name(ChainState v) {
  return format::detail::name_at(static_cast<size_t>(v), kChainStateNames);
}
constexpr std::string_view name(GateResult v) {
  return format::detail::name_at(static_cast<size_t>(v), kGateResultNames);
}
constexpr bool parse(std::string_view s, GateStatus* out) {
  return format::detail::parse_in(s, kGateStatusNames, out);
}
constexpr bool parse(std::string_view s, ChainState* out) {
  return format::detail::parse_in(s, kChainStateNames, out);
}
constexpr bool parse(std::string_view s, GateResult* out) {
  return format::detail::parse_in(s, kGateResultNames, out);
}

static_assert(std::size(kGateStatusNames) == static_cast<size_t>(GateStatus::kIgnored) + 1);
static_assert(std::size(kChainStateNames) == static_cast<size_t>(ChainState::kDestroyed) + 1);
static_assert(std::size(kGateResultNames) ==
              static_cast<size_t>(GateResult::kTeardownNotChecked) + 1);

}  // namespace vkleak::analysis
