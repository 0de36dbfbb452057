#include "analysis/messages.h"

#include "core/hex.h"
#include "core/summary.h"
#include "format/snapshot_format.h"
#include "shared/escape.h"
#include "shared/text.h"

namespace vkleak::analysis {

namespace {

std::string plural(uint64_t n, const std::string& one) {
  return format_count(n) + " " + one;
}

std::string frame_range(uint64_t first, uint64_t last) {
  return first == last ? "frame " + std::to_string(first)
                       : "frames " + std::to_string(first) + "-" + std::to_string(last);
}

// "3 VkImageView \"view.*\"", or "3 VkImageView" for unnamed objects (no stray space).
std::string subject(const Finding& f, uint64_t count) {
  std::string s = plural(count, f.object_type);
  const std::string name = quoted_pattern(f);
  if (!name.empty()) s += " " + name;
  return s;
}

std::string subject(const Finding& f) {
  return subject(f, f.count);
}

// ", with their 300 VkDeviceMemory (18.8 MiB)", "; holding 33 VkDescriptorSet"
std::string related_text(const Finding& f) {
  std::string out;
  for (const Related& r : f.related) {
    if (r.relation == "memory") {
      out += ", with the " + plural(r.count, r.type) + " only they are bound to (" +
             format_bytes(r.bytes) + ")";
    } else if (r.relation == "views") {
      out += ", with " + plural(r.count, r.type) + " of them";
    } else if (r.relation == "pool children") {
      out += ", holding " + plural(r.count, r.type);
      if (!r.callsite.empty()) {
        out += " (" +
               std::string(r.callsite_count == r.count
                               ? ""
                               : format_count(r.callsite_count) + " of them ") +
               "allocated in " + r.callsite.front().text + ")";
      }
    }
  }
  return out;
}

std::string chain_text(const Chain& c) {
  std::string out;
  for (const ChainLink& l : c.links) {
    if (!out.empty()) out += " -> ";
    out += l.type;
    if (l.name) out += " " + quote_name(*l.name, 60);
    if (l.state == ChainState::kDestroyed) {
      out += " (destroyed";
      if (l.destroyed_frame) out += " in frame " + std::to_string(*l.destroyed_frame);
      out += ")";
    } else if (l.state == ChainState::kRetained) {
      out += " (retained)";
    }
  }
  return out;
}

}  // namespace

std::string quoted_pattern(const Finding& f) {
  const std::string& name = f.display_name.empty() ? f.name_pattern : f.display_name;
  return name.empty() ? "" : quote_name(name, 80);
}

std::string leak_message(const Finding& f, const Hits& h) {
  std::string where;
  if (h.snapshot_reason == format::name(format::Reason::kDeviceDestroy)) {
    where = "at vkDestroyDevice";
  } else if (h.snapshot_reason == format::name(format::Reason::kInstanceDestroy)) {
    where = "at vkDestroyInstance";
  } else {
    where = "at exit (the application never destroyed its instance)";
  }
  return subject(f) + " still alive " + where + " (frame " + std::to_string(h.snapshot_frame) +
         "), created in " + frame_range(f.frames.first, f.frames.last) + related_text(f) +
         (f.bytes > 0 ? ": " + format_bytes(f.bytes) + " leaked." : ".");
}

std::string alive_group_text(const AliveGroup& g) {
  std::string text = plural(g.count, g.type);
  if (!g.name_pattern.empty()) text += " " + quote_name(g.name_pattern, 80);
  if (!g.callsite.empty()) text += " (made in " + g.callsite.front().text + ")";
  return text;
}

AliveLines alive_lines(const std::vector<AliveGroup>& groups) {
  AliveLines lines;
  for (const AliveGroup& g : groups) {
    if (lines.shown.size() == kAliveGroupsShown) {
      ++lines.more;
      continue;
    }
    lines.shown.push_back(alive_group_text(g) + (g.bytes > 0 ? ", " + format_bytes(g.bytes) : ""));
  }
  return lines;
}

std::string undestroyed_root_message(const Finding& f) {
  // The groups a sentence can hold; JSON's contents lists them all.
  constexpr size_t kGroupsSaid = 8;
  const bool instance = f.object_type == "VkInstance";
  std::string text = f.object_type;
  if (!f.display_name.empty()) text += " " + quote_name(f.display_name, 80);
  text += std::string(
              " never destroyed: the program exited (exit() or a return from main) at "
              "frame ") +
          std::to_string(f.frames.snapshot.value_or(0)) + " without " +
          (instance ? "vkDestroyInstance" : "vkDestroyDevice") + ", leaving it";
  uint64_t under = f.count > 0 ? f.count - 1 : 0;
  if (under > 0) text += " and " + plural(under, under == 1 ? "object" : "objects") + " under it";
  text += " alive";
  if (f.bytes > 0) text += " (" + format_bytes(f.bytes) + ")";
  if (f.contents.empty()) return text + ".";
  text += ": ";
  for (size_t i = 0; i < f.contents.size() && i < kGroupsSaid; ++i) {
    text += (i ? ", " : "") + alive_group_text(f.contents[i]);
  }
  if (f.contents.size() > kGroupsSaid)
    text += ", and " + plural(f.contents.size() - kGroupsSaid, "more group") +
            (f.contents.size() - kGroupsSaid == 1 ? "" : "s");
  return text + ". One teardown is missing: destroy them, then the " +
         (instance ? "instance." : "device.");
}

std::string skipped_teardown_note(const SkippedTeardown& t) {
  return "teardown not checked: the process ended with " + t.ended_by + " at frame " +
         std::to_string(t.frame) + " (snapshot #" + std::to_string(t.sequence) +
         "), which skips every teardown; the " +
         plural(t.objects, t.objects == 1 ? "object" : "objects") + " alive then (" +
         format_bytes(t.bytes) +
         ") are listed, not judged as leaks; growth and the other kinds are judged from the "
         "snapshots taken during the run";
}

std::string retained_message(const Finding& f, const Hits& h, const Thresholds& t) {
  std::string text = subject(f) + " not used by any submission for " +
                     std::to_string(t.min_frames_unused) + "+ frames (created in " +
                     frame_range(f.frames.first, f.frames.last);
  if (h.last_used)
    text += ", last used in frame " + std::to_string(*h.last_used) + " at the latest";
  text += ") while a newer one of the same group is in use";
  if (h.group_last_used) text += " (frame " + std::to_string(*h.group_last_used) + ")";
  return text + ": superseded but never freed. They hold " + format_bytes(f.bytes) +
         related_text(f) + " (snapshot at frame " + std::to_string(h.snapshot_frame) + ").";
}

std::string stale_message(const Finding& f, const Hits& h, const Thresholds& t) {
  std::string text;
  if (h.stale_pinning > 0) {
    text += subject(f, h.stale_pinning) + (h.stale_pinning == 1 ? " pins" : " pin") +
            " retained objects (unused for " + std::to_string(t.min_frames_unused) +
            "+ frames, superseded), keeping " + format_bytes(f.bytes) + " alive";
  }
  if (h.stale_dangling > 0) {
    if (!text.empty()) text += "; ";
    text += subject(f, h.stale_dangling) + (h.stale_dangling == 1 ? " references" : " reference") +
            " destroyed objects";
    if (h.stale_first_destroyed) {
      text +=
          " (destroyed in " + frame_range(*h.stale_first_destroyed, *h.stale_last_destroyed) + ")";
    }
  }
  if (!f.chains.empty()) text += ". For example: " + chain_text(f.chains.front());
  return text + " (snapshot at frame " + std::to_string(h.snapshot_frame) + ").";
}

std::string orphaned_message(const Finding& f, const Hits& h, const Thresholds& t) {
  std::string text = subject(f) + " with nothing bound to it, unused for " +
                     std::to_string(t.min_frames_unused) + "+ frames (allocated in " +
                     frame_range(f.frames.first, f.frames.last);
  if (h.last_used)
    text += ", last used in frame " + std::to_string(*h.last_used) + " at the latest";
  return text + "): " + format_bytes(f.bytes) + " held for nothing (snapshot at frame " +
         std::to_string(h.snapshot_frame) + ").";
}

std::string growth_message(const Finding& f, size_t first_point, const GrowthVerdict& live) {
  const Series& s = *f.series;
  const size_t last = s.frames.size() - 1;
  // From the group's first object on, as it was judged: not "from 0" before it existed.
  while (first_point < last && s.live[first_point] == 0) ++first_point;
  std::string text = "Live " + f.object_type;
  const std::string name = quoted_pattern(f);
  if (!name.empty()) text += " " + name;
  text += " rose from " + format_count(s.live[first_point]) + " to " + format_count(s.live[last]);
  if (s.bytes[last] > 0) {
    text += " (" + format_bytes(s.bytes[first_point]) + " to " + format_bytes(s.bytes[last]) + ")";
  }
  text += " over " + std::to_string(last - first_point + 1) + " snapshots, " +
          frame_range(s.frames[first_point], s.frames[last]) + ", ";
  // live is the verdict on the count's floor (the fewest alive from each snapshot on).
  text += "the count rising in " + std::to_string(live.rises) + " of " +
          std::to_string(live.intervals) + " intervals and never coming back down";
  text += live.stepped ? ", in steps." : ".";
  return text;
}

std::string quote_name(std::string_view name, size_t max_chars) {
  return "\"" + display_cut(name, max_chars) + "\"";
}

std::string describe_object(const std::string& type, const std::string* name, uint64_t id) {
  std::string text = type;
  if (name != nullptr) text += " " + quote_name(*name, 60);
  return text + " (id " + std::to_string(id) + ")";
}

namespace {

// Memory, descriptor sets and command buffers are freed; the rest destroyed.
bool is_freed(const std::string& type) {
  return type == "VkDeviceMemory" || type == "VkDescriptorSet" || type == "VkCommandBuffer";
}

}  // namespace

std::string describe_event_object(const Event& e) {
  return e.object != kNullId
             ? describe_object(e.type, e.name ? &*e.name : nullptr, static_cast<uint64_t>(e.object))
             : e.type + " " + format_hex(e.handle);
}

std::string event_headline(const Event& e, const std::string& device) {
  const std::string object = describe_event_object(e);
  if (e.kind == format::name(format::EventKind::kDestroyedInFlight)) {
    // The layer's sentence names the object, what it did ("freed with its pool") and the path.
    if (!e.message.empty()) return e.message;
    std::string text = object + (is_freed(e.type) ? " freed" : " destroyed") + " at frame " +
                       std::to_string(e.frame) + " while ";
    if (e.has_submission) {
      text += "submission " + std::to_string(e.submission_serial) + " on queue " +
              std::to_string(e.submission_queue) + " (frame " + std::to_string(e.submission_frame) +
              ") that uses it was not proven complete";
    } else {
      text += "a submission that uses it was not proven complete";
    }
    return text;
  }
  const std::string call = std::string(is_freed(e.type) ? "free of " : "destroy of ") + object;
  if (e.reason == format::name(format::InvalidDestroy::kAlreadyDestroyed)) {
    const bool which_unknown = e.object == kNullId && !e.name && !e.has_created;
    return call + (is_freed(e.type) ? ", already freed" : ", already destroyed") +
           (e.has_first_destroy ? " at frame " + std::to_string(e.first_destroy_frame) : "") +
           " (again at frame " + std::to_string(e.frame) + ")" +
           (which_unknown ? ": the handle belonged to more than one object (destroyed by "
                            "different threads in one frame, or not all remembered: "
                            "graveyard_size), and which of them this was cannot be told"
                          : "");
  }
  if (e.reason == format::name(format::InvalidDestroy::kWrongDevice)) {
    return call + " at frame " + std::to_string(e.frame) + " with the wrong device" +
           (device.empty() ? "" : ": it belongs to " + device);
  }
  if (e.reason == format::name(format::InvalidDestroy::kUnknownHandle)) {
    return call + " at frame " + std::to_string(e.frame) +
           ": a handle the layer never saw (or one destroyed so long ago that it left the "
           "bounded graveyard of recently destroyed objects)";
  }
  return e.message;  // a layer before the reasons: its own words
}

std::string event_message(const Finding& f, const std::string& headline) {
  if (f.events.empty()) return "";
  if (f.count == 1) return headline;
  const std::string what = f.kind == FindingKind::kDestroyedInFlight
                               ? " destroyed while a submission using them was in flight, in "
                               : " destroyed or freed invalidly, in ";
  return subject(f) + what + frame_range(f.frames.first, f.frames.last) + ". First: " + headline;
}

namespace {
bool frames_never_ended(const FrameCounting& c) {
  return c.max_frame == 0 && c.submits > 0 && c.presents == 0;
}
}  // namespace

std::string frame_counting_note(const FrameCounting& c) {
  if (c.at_submits_auto) return kFramesAtSubmitsNote;
  if (frames_never_ended(c)) {
    return "frames never ended: " + plural(c.submits, "submit(s)") +
           " and no present with frame_boundary=present (--frame-boundary auto or submit counts "
           "frames at submits)";
  }
  return "";
}

std::string periodic_snapshots_hint(const FrameCounting& c) {
  return frames_never_ended(c) ? "frames never ended: see the note on frame_boundary"
                               : "vkleak run --every N takes them";
}

}  // namespace vkleak::analysis
