#include "analysis/completeness.h"

#include <algorithm>
#include <string_view>

#include "format/snapshot_format.h"
#include "shared/text.h"

namespace vkleak::analysis {

namespace {

constexpr size_t kListAtMost = 5;  // problems of one kind listed before "and N more"

std::string snapshot_name(uint64_t sequence, const std::string& reason) {
  return "#" + std::to_string(sequence) + (reason.empty() ? "" : " (" + reason + ")");
}

std::string plural(uint64_t n, const char* one, const char* many) {
  return format_count(n) + " " + (n == 1 ? one : many);
}

// Files of layers before "final" was written: the end-of-run snapshots were these.
bool ends_run(const std::string& reason) {
  return reason == format::name(format::Reason::kExit) ||
         reason == format::name(format::Reason::kInstanceDestroy);
}

std::string run_name(uint64_t pid, std::string_view run_id) {
  return "pid " + std::to_string(pid) + (run_id.empty() ? "" : " run " + std::string(run_id));
}

}  // namespace

void CompletenessCheck::add(const Snapshot& s) {
  // A run is (pid, run id): the file's name says which run it belongs to, its content must agree
  // (a file of another process renamed or copied among this run's is not this run's end).
  if (!s.path.empty()) {
    const size_t slash = s.path.find_last_of('/');
    const std::string_view base =
        std::string_view(s.path).substr(slash == std::string::npos ? 0 : slash + 1);
    format::FileName name;
    if (format::parse_file_name(base, &name) &&
        (name.pid != s.pid || name.run_id != s.run_id || name.sequence != s.sequence)) {
      foreign_.push_back("snapshot " + std::string(base) + " is not the run its name says: its " +
                         "content is " + run_name(s.pid, s.run_id) + " snapshot " +
                         snapshot_name(s.sequence, "") +
                         " (a file of another process renamed or copied here)");
    }
  }
  if (!have_run_id_) {
    have_run_id_ = true;
    run_id_ = s.run_id;
  } else if (run_id_ != s.run_id && mixed_.empty()) {
    mixed_ = "snapshots of two runs are mixed: " + run_name(s.pid, run_id_) + " and " +
             run_name(s.pid, s.run_id) + " (give each run its own directory)";
  }
  pid_ = s.pid;
  Seen& seen = by_sequence_[s.sequence];
  ++seen.count;
  seen.reason = s.reason;
  seen.label = s.label;
  seen.frame = s.frame;
  // Layers that write run ids always say "final"; only files of older layers fall back on the
  // reason.
  seen.final_snapshot = s.final_snapshot.value_or(s.run_id.empty() && ends_run(s.reason));
  if (s.sequence == by_sequence_.rbegin()->first) {
    unwritten_count_ = s.unwritten_count;
    unwritten_ = s.unwritten;
    coalesced_signals_ = s.coalesced_signals;
  }
  // Destroy snapshots carry their device's or instance's frame; the others the run's.
  if (!s.scope_device && !s.scope_instance) run_frames_.emplace_back(s.sequence, s.frame);
}

Completeness CompletenessCheck::finish() const {
  Completeness c;
  if (by_sequence_.empty()) return c;

  for (size_t i = 0; i < foreign_.size() && i < kListAtMost; ++i) c.problems.push_back(foreign_[i]);
  if (foreign_.size() > kListAtMost) {
    c.problems.push_back("and " +
                         plural(foreign_.size() - kListAtMost, "more snapshot", "more snapshots") +
                         " not of this run");
  }
  if (!mixed_.empty()) c.problems.push_back(mixed_);

  std::vector<uint64_t> duplicated;
  for (const auto& [sequence, seen] : by_sequence_) {
    if (seen.count > 1) duplicated.push_back(sequence);
  }
  if (!duplicated.empty()) {
    c.problems.push_back("snapshot " + snapshot_name(duplicated.front(), "") + " appears " +
                         std::to_string(by_sequence_.at(duplicated.front()).count) +
                         " times: several processes with pid " + std::to_string(pid_) +
                         " wrote into the same directory (give each run its own directory)");
  }

  // What the layer says it could not write, then the other holes in the sequence.
  std::map<uint64_t, const UnwrittenSnapshot*> unwritten_by_sequence;
  for (const UnwrittenSnapshot& u : unwritten_) {
    if (u.sequence) unwritten_by_sequence[*u.sequence] = &u;
  }
  if (unwritten_count_ > 0) {
    std::string line =
        "the layer could not write " + plural(unwritten_count_, "snapshot", "snapshots");
    size_t listed = 0;
    for (const UnwrittenSnapshot& u : unwritten_) {
      if (listed == kListAtMost) break;
      line += (listed++ ? "; " : ": ") +
              (u.sequence ? snapshot_name(*u.sequence, u.reason) : u.reason + " (unnumbered)") +
              ": " + u.error;
    }
    if (unwritten_count_ > listed)
      line += "; and " + format_count(unwritten_count_ - listed) + " more";
    c.problems.push_back(line);
  }
  // Walked gap by gap, not number by number: a hostile file may claim sequence 2^63.
  std::vector<uint64_t> missing;
  uint64_t missing_total = 0;
  const uint64_t last = by_sequence_.rbegin()->first;
  uint64_t next = 0;  // the lowest sequence number not yet accounted for
  for (const auto& entry : by_sequence_) {
    const uint64_t sequence = entry.first;
    const uint64_t known = static_cast<uint64_t>(std::count_if(
        unwritten_by_sequence.lower_bound(next), unwritten_by_sequence.lower_bound(sequence),
        [](const auto&) { return true; }));
    missing_total += sequence - next - known;
    for (uint64_t m = next; m < sequence && missing.size() < kListAtMost; ++m) {
      if (!unwritten_by_sequence.count(m)) missing.push_back(m);
    }
    next = sequence + 1;
  }
  if (missing_total > 0) {
    std::string line = plural(missing_total, "snapshot is", "snapshots are") + " missing: ";
    for (size_t i = 0; i < missing.size(); ++i)
      line += (i ? ", #" : "#") + std::to_string(missing[i]);
    if (missing_total > missing.size())
      line += " and " + format_count(missing_total - missing.size()) + " more";
    line += " (not among the inputs, or deleted)";
    c.problems.push_back(line);
  }

  const Seen& end = by_sequence_.rbegin()->second;
  if (end.reason == format::name(format::Reason::kCrash)) {
    c.crash_signal = end.label.value_or("a fatal signal");
    // SIGTERM is no crash but a stop (a service manager, kill): the layer snapshots it the same.
    c.problems.push_back(
        (c.crash_signal == "SIGTERM" ? "the run was stopped by SIGTERM"
                                     : "the run crashed (" + c.crash_signal + ")") +
        " at frame " + format_count(end.frame) + ": snapshot " + snapshot_name(last, "") +
        " shows what was alive then; leaks at exit were not checked");
  } else if (!end.final_snapshot) {
    c.problems.push_back(
        "the run has no end-of-run snapshot: the last is " + snapshot_name(last, end.reason) +
        " at frame " + format_count(end.frame) +
        " (the process was killed, crashed, called _exit() or is still running, or the "
        "snapshots at exit are off)");
  }

  std::vector<std::pair<uint64_t, uint64_t>> frames = run_frames_;
  std::sort(frames.begin(), frames.end());
  for (size_t i = 1; i < frames.size(); ++i) {
    if (frames[i].second < frames[i - 1].second) {
      c.warnings.push_back("frames go backwards: snapshot #" + std::to_string(frames[i].first) +
                           " is at frame " + format_count(frames[i].second) + ", #" +
                           std::to_string(frames[i - 1].first) + " was at frame " +
                           format_count(frames[i - 1].second));
      break;
    }
  }
  if (coalesced_signals_ > 0) {
    c.warnings.push_back(plural(coalesced_signals_, "snapshot signal", "snapshot signals") +
                         " arrived while one was pending and shared its snapshot");
  }
  return c;
}

}  // namespace vkleak::analysis
