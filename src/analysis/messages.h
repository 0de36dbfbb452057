// The one-paragraph message of each finding, in plain words: what, how many, since when, what
// it holds.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analysis/finding.h"
#include "analysis/hits.h"
#include "analysis/options.h"
#include "analysis/rules/rules.h"

namespace vkleak::analysis {

// "\"wrapper.vertices\"", "\"bindgroup.*\"" or "" for unnamed objects.
std::string quoted_pattern(const Finding& f);

std::string leak_message(const Finding& f, const Hits& h);
// leak_at_exit of an instance or device never destroyed before exit(): the root, then what it
// holds by type and call site (Finding::contents), the largest groups first.
std::string undestroyed_root_message(const Finding& f);
// "3 VkBuffer \"leaked.*\" (made in leak_buffers (app.cpp:70))": a group of AliveGroup.
std::string alive_group_text(const AliveGroup& g);
// What a report shows of groups of AliveGroup (what a root never destroyed holds, what was alive
// when the process skipped its teardown): the first ones, with their bytes, and how many more
// (the JSON lists them all). Unescaped: each output escapes for its medium.
struct AliveLines {
  std::vector<std::string> shown;  // "3 VkBuffer \"leaked.*\" (made in ...), 12.0 KiB"
  size_t more = 0;                 // groups not shown
};
inline constexpr size_t kAliveGroupsShown = 10;
AliveLines alive_lines(const std::vector<AliveGroup>& groups);
// The note of a run whose process skipped its teardown (_exit(), quick_exit()).
std::string skipped_teardown_note(const SkippedTeardown& t);
std::string retained_message(const Finding& f, const Hits& h, const Thresholds& t);
std::string stale_message(const Finding& f, const Hits& h, const Thresholds& t);
std::string orphaned_message(const Finding& f, const Hits& h, const Thresholds& t);
std::string growth_message(const Finding& f, size_t first_point, const GrowthVerdict& live);
// headline: the first event's (event_headline).
std::string event_message(const Finding& f, const std::string& headline);

// A name in double quotes, cut to max_chars code points (display_cut) but not escaped: messages,
// titles, stack lines and notes hold untrusted text as it is, and every renderer escapes them once
// by the rule of its medium (shared/escape.h); escaping here as well showed "tab\\x09here".
std::string quote_name(std::string_view name, size_t max_chars);

// "VkSampler \"linear\" (id 12)", "VkImage (id 7)": how headlines and stacks name an object.
std::string describe_object(const std::string& type, const std::string* name, uint64_t id);
// The object an event is about, as describe_object says it; its handle when it has no id.
std::string describe_event_object(const Event& e);
// One event in a sentence that names the object (and for invalid_destroy the reason):
// "destroy of VkSampler \"linear\" (id 12), already destroyed at frame 3". device: the owning
// device (wrong_device), as describe_object says it.
std::string event_headline(const Event& e, const std::string& device);

// How a run's frames were counted, gathered over its snapshots.
struct FrameCounting {
  bool at_submits_auto = false;  // frame_boundary=auto counted some device's frames at submits
  uint64_t max_frame = 0;
  uint64_t submits = 0, presents = 0;  // the most any one snapshot's devices report
};
// The note to give, or "": frames counted at submits because the program never presented, or
// frames that never ended (submits without presents under frame_boundary=present).
std::string frame_counting_note(const FrameCounting& c);
// What to do to get snapshots during the run: "vkleak run --every N" unless frames never ended.
std::string periodic_snapshots_hint(const FrameCounting& c);

}  // namespace vkleak::analysis
