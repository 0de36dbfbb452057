#include "analysis/rules/events.h"

#include <algorithm>
#include <set>
#include <unordered_set>

#include "analysis/grouping.h"
#include "analysis/messages.h"
#include "format/snapshot_format.h"
#include "shared/text.h"

namespace vkleak::analysis {

IdCallsites id_callsites(const SnapshotIndex& index) {
  IdCallsites out;
  out.reserve(index.size());
  for (size_t i = 0; i < index.size(); ++i) out.emplace_back(index.object(i).id, index.callsite(i));
  std::sort(out.begin(), out.end());
  return out;
}

namespace {

std::string path_step_text(const EventPathStep& step) {
  std::string text = step.relation + " " + step.type;
  if (step.name) text += " \"" + *step.name + "\"";
  return text + " (id " + std::to_string(step.id) + ")";
}

std::string describe_step(const EventPathStep& step) {
  return describe_object(step.type, step.name ? &*step.name : nullptr,
                         static_cast<uint64_t>(step.id));
}

// "VkDevice \"gpu\" (id 2)": its debug name when a snapshot object carries it.
std::string describe_device(const SnapshotIndex& index, int64_t id) {
  const size_t i = index.find(id);
  const std::string* name = i == kNotFound ? nullptr : index.snapshot().name(index.object(i));
  std::string text = describe_object("VkDevice", name, static_cast<uint64_t>(id));
  for (const Device& d : index.snapshot().devices) {
    if (d.id == id && !d.physical_device.empty())
      text += " on " + quote_name(d.physical_device, 60);
  }
  return text;
}

constexpr const char* kNotRecorded =
    "stack not recorded (callstack_depth=0, or a layer without misuse stacks)";
constexpr const char* kDestroyNotRecorded =
    "stack not recorded (destroy_callstacks was off: vkleak run --destroy-callstacks records them)";

// The stacks of one event, in the order ASan shows them (FINDINGS.md).
std::vector<EventRule::Group::Stack> event_stacks(const SnapshotIndex& index, const Event& e,
                                                  FindingKind kind, const std::string& device) {
  using Stack = EventRule::Group::Stack;
  std::vector<Stack> out;
  const auto call = [&](const char* label, int32_t callsite, std::string note) {
    Stack st;
    st.label = label;
    st.callsite = index.callsite_id(callsite);
    if (st.callsite == kNoCallsiteId) st.note = std::move(note);
    return st;
  };
  const auto created = [&]() {
    Stack st;
    st.label = "created here";
    if (e.has_created) {
      st.callsite = index.callsite_id(e.created_callsite);
      st.note = "at frame " + std::to_string(e.created_frame);
      if (st.callsite == kNoCallsiteId) st.note += "; stack not recorded";
    } else {
      st.creation_fallback = true;
    }
    return st;
  };
  if (kind == FindingKind::kDestroyedInFlight) {
    out.push_back(call("destroyed here", e.callsite, kNotRecorded));
    if (e.has_submission || !e.path.empty()) {
      Stack use;
      use.label = "while in use by";
      if (e.has_submission) {
        use.lines.push_back("queue " + std::to_string(e.submission_queue) + ", submission " +
                            std::to_string(e.submission_serial) + ", frame " +
                            std::to_string(e.submission_frame));
      }
      if (!e.path.empty()) {
        // The layer writes the path from the object outwards: read it from the command buffer.
        std::string path;
        for (auto it = e.path.rbegin(); it != e.path.rend(); ++it) {
          path += describe_step(*it) + " > ";
        }
        path += describe_event_object(e);
        use.lines.push_back(std::move(path));
      }
      out.push_back(std::move(use));
    }
    out.push_back(created());
    return out;
  }
  out.push_back(call("invalid call here", e.callsite, kNotRecorded));
  if (e.reason == format::name(format::InvalidDestroy::kAlreadyDestroyed)) {
    // No object: the handle was reused and the layer cannot tell which object it was.
    if (e.object == kNullId && !e.name && !e.has_created) return out;
    out.push_back(created());
    if (e.has_first_destroy) {
      Stack first = call("first destroyed here", e.first_destroy_callsite, "");
      first.note = "at frame " + std::to_string(e.first_destroy_frame);
      if (first.callsite == kNoCallsiteId) first.note += "; " + std::string(kDestroyNotRecorded);
      out.push_back(std::move(first));
    }
  } else if (e.reason == format::name(format::InvalidDestroy::kWrongDevice)) {
    Stack st = created();
    if (!device.empty()) st.lines.push_back("on " + device + ", the device that owns it");
    out.push_back(std::move(st));
  }
  return out;
}

}  // namespace

void EventRule::add(const SnapshotIndex& index, const IdCallsites& previous) {
  const Snapshot& s = index.snapshot();
  for (const Event& e : s.events) {
    FindingKind kind;
    if (e.kind == format::name(format::EventKind::kDestroyedInFlight)) {
      kind = FindingKind::kDestroyedInFlight;
    } else if (e.kind == format::name(format::EventKind::kInvalidDestroy)) {
      kind = FindingKind::kInvalidDestroy;
    } else {
      if (e.kind == format::name(format::EventKind::kDuplicateHandle)) ++duplicate_handles_;
      continue;
    }
    const std::string pattern = e.name ? name_pattern(*e.name) : "";
    auto key = std::make_tuple(static_cast<int>(kind), e.type, pattern);
    auto [it, added] = by_key_.try_emplace(key, groups_.size());
    if (added) {
      groups_.emplace_back();
      groups_.back().kind = kind;
      groups_.back().type = e.type;
      groups_.back().pattern = pattern;
      names_seen_.emplace_back();
    }
    Group& g = groups_[it->second];
    if (g.count == 0) {
      const std::string device =
          e.belongs_to != kNullId ? describe_device(index, e.belongs_to) : std::string();
      g.headline = event_headline(e, device);
      g.stacks = event_stacks(index, e, kind, device);
    }
    ++g.count;
    if (!e.reason.empty() &&
        std::find(g.reasons.begin(), g.reasons.end(), e.reason) == g.reasons.end())
      g.reasons.push_back(e.reason);
    g.first_frame = std::min<uint64_t>(g.first_frame, static_cast<uint64_t>(e.frame));
    g.last_frame = std::max<uint64_t>(g.last_frame, static_cast<uint64_t>(e.frame));
    g.snapshot = s.path;
    // Distinct names, in order of first appearance (the analyzer sorts them): a hash set keeps
    // this linear in the events, where a sorted insert was quadratic.
    if (e.name && names_seen_[it->second].insert(*e.name).second) g.names.push_back(*e.name);
    if (g.examples.size() < options_.max_examples) {
      EventExample x;
      x.frame = static_cast<uint64_t>(e.frame);
      if (e.object != kNullId) x.object = static_cast<uint64_t>(e.object);
      x.name = e.name;
      if (e.has_submission) {
        x.submission_queue = static_cast<uint64_t>(e.submission_queue);
        x.submission_serial = static_cast<uint64_t>(e.submission_serial);
        x.submission_frame = static_cast<uint64_t>(e.submission_frame);
      }
      for (const EventPathStep& step : e.path) x.path.push_back(path_step_text(step));
      x.message = e.message;
      g.examples.push_back(std::move(x));
    }
    // The creation the layer recorded with the event; else the object as a snapshot saw it.
    if (g.callsite == UINT32_MAX && e.has_created &&
        index.callsite_id(e.created_callsite) != kNoCallsiteId) {
      g.callsite = index.callsite_id(e.created_callsite);
      g.callsite_source = "object";
      g.lookup_name.reset();
    }
    if (g.callsite != UINT32_MAX || e.object == kNullId) continue;
    // The object itself: alive in the previous snapshot, or a destroyed target of this one.
    const auto id = static_cast<uint64_t>(e.object);
    auto found =
        std::lower_bound(previous.begin(), previous.end(), std::make_pair(id, uint32_t{0}));
    if (found != previous.end() && found->first == id && found->second != UINT32_MAX) {
      g.callsite = found->second;
    } else if (const DestroyedObject* d = index.destroyed(e.object); d && d->callsite >= 0) {
      g.callsite = index.callsite_id(d->callsite);
    }
    if (g.callsite != UINT32_MAX) {
      g.callsite_source = "object";
      g.lookup_name.reset();
    } else if (e.name && !g.lookup_name) {
      g.lookup_name = *e.name;
    }
  }
}

void EventRule::resolve_by_name(const SnapshotIndex& index) {
  const Snapshot& s = index.snapshot();
  // (type index, name index) -> groups waiting for it.
  std::map<std::pair<uint16_t, int32_t>, std::vector<size_t>> wanted;
  std::map<std::string, int32_t> name_ids;
  for (size_t g = 0; g < groups_.size(); ++g) {
    if (!groups_[g].lookup_name || groups_[g].callsite != UINT32_MAX) continue;
    name_ids.emplace(*groups_[g].lookup_name, kNoName);
  }
  if (name_ids.empty()) return;
  for (size_t n = 0; n < s.names.size(); ++n) {
    auto it = name_ids.find(s.names[n]);
    if (it != name_ids.end()) it->second = static_cast<int32_t>(n);
  }
  for (size_t g = 0; g < groups_.size(); ++g) {
    if (!groups_[g].lookup_name || groups_[g].callsite != UINT32_MAX) continue;
    const int32_t name = name_ids[*groups_[g].lookup_name];
    if (name == kNoName) continue;
    for (size_t t = 0; t < s.type_names.size(); ++t) {
      if (s.type_names[t] == groups_[g].type) {
        wanted[{static_cast<uint16_t>(t), name}].push_back(g);
      }
    }
  }
  for (size_t i = 0; i < index.size() && !wanted.empty(); ++i) {
    const Object& o = index.object(i);
    if (o.name == kNoName || o.callsite < 0) continue;
    auto it = wanted.find({o.type, o.name});
    if (it == wanted.end()) continue;
    for (size_t g : it->second) {
      groups_[g].callsite = index.callsite(i);
      groups_[g].callsite_source = "same_name";
      groups_[g].lookup_name.reset();
    }
    wanted.erase(it);
  }
}

}  // namespace vkleak::analysis
