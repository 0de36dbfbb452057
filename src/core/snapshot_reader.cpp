#include "core/snapshot_reader.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <numeric>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include "core/input_file.h"
#include "core/snapshot_parser.h"
#include "format/snapshot_format.h"
#include "shared/text.h"

namespace vkleak {

namespace {

// Sorts table by less (stably, over the old order) and returns new_of[old index].
template <typename T, typename Less>
std::vector<uint32_t> sort_table(std::vector<T>* table, Less less) {
  const size_t n = table->size();
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), uint32_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return less((*table)[a], (*table)[b]); });
  std::vector<T> sorted;
  sorted.reserve(n);
  std::vector<uint32_t> new_of(n);
  for (size_t k = 0; k < n; ++k) {
    new_of[order[k]] = static_cast<uint32_t>(k);
    sorted.push_back(std::move((*table)[order[k]]));
  }
  *table = std::move(sorted);
  return new_of;
}

// An index into a table sorted by sort_table; none (negative) and out of range stay as they are.
template <typename Index>
void remap(Index* value, const std::vector<uint32_t>& new_of) {
  if constexpr (std::is_signed_v<Index>) {
    if (*value < 0) return;
  }
  const auto old = static_cast<size_t>(*value);
  if (old < new_of.size()) *value = static_cast<Index>(new_of[old]);
}

}  // namespace

void put_in_canonical_order(Snapshot* s) {
  // Interned strings, sorted: their indices compare as the strings do.
  const auto by_string = [](const std::string& a, const std::string& b) { return a < b; };
  const std::vector<uint32_t> type_of = sort_table(&s->type_names, by_string);
  const std::vector<uint32_t> name_of = sort_table(&s->names, by_string);
  const std::vector<uint32_t> kind_of = sort_table(&s->edge_kinds, by_string);
  for (Object& o : s->objects) {
    remap(&o.type, type_of);
    remap(&o.name, name_of);
  }
  for (Edge& e : s->edges) {
    remap(&e.type, type_of);
    remap(&e.name, name_of);
    remap(&e.kind, kind_of);
  }
  for (DestroyedObject& d : s->destroyed) {
    remap(&d.type, type_of);
    remap(&d.name, name_of);
  }

  // Objects by id (unique in a snapshot); their side tables follow them.
  const std::vector<uint32_t> object_of =
      sort_table(&s->objects, [](const Object& a, const Object& b) { return a.id < b.id; });
  for (LastUse& u : s->last_uses) remap(&u.object, object_of);
  for (MemoryBinding& m : s->memory_bindings) remap(&m.object, object_of);
  for (Edge& e : s->edges) remap(&e.from, object_of);
  std::stable_sort(s->last_uses.begin(), s->last_uses.end(),
                   [](const LastUse& a, const LastUse& b) { return a.object < b.object; });
  std::stable_sort(
      s->memory_bindings.begin(), s->memory_bindings.end(),
      [](const MemoryBinding& a, const MemoryBinding& b) { return a.object < b.object; });
  std::stable_sort(s->destroyed.begin(), s->destroyed.end(),
                   [](const DestroyedObject& a, const DestroyedObject& b) { return a.id < b.id; });

  // Edges by source, then by what they say.
  std::stable_sort(s->edges.begin(), s->edges.end(), [](const Edge& a, const Edge& b) {
    return std::tie(a.from, a.kind, a.slot, a.type, a.to, a.offset, a.size, a.name, a.handle) <
           std::tie(b.from, b.kind, b.slot, b.type, b.to, b.offset, b.size, b.name, b.handle);
  });

  // Events as they happened (frame, time), then by what they say; their call sites by their
  // frames, not by their index in the table.
  static const std::vector<uint64_t> kNoFrames;
  const auto frames = [s](int32_t c) -> const std::vector<uint64_t>& {
    return c >= 0 && static_cast<size_t>(c) < s->callsites.size()
               ? s->callsites[static_cast<size_t>(c)]
               : kNoFrames;
  };
  const auto event_key = [&frames](const Event& e) {
    return std::tie(e.frame, e.time_ms, e.kind, e.type, e.object, e.owner, e.reason, e.name,
                    e.message, frames(e.callsite), e.has_created, e.created_frame,
                    frames(e.created_callsite), e.has_submission, e.submission_queue,
                    e.submission_serial, e.submission_frame, e.has_first_destroy,
                    e.first_destroy_frame, frames(e.first_destroy_callsite), e.belongs_to);
  };
  std::stable_sort(s->events.begin(), s->events.end(),
                   [&](const Event& a, const Event& b) { return event_key(a) < event_key(b); });

  std::stable_sort(s->instances.begin(), s->instances.end(),
                   [](const Instance& a, const Instance& b) { return a.id < b.id; });
  std::stable_sort(s->devices.begin(), s->devices.end(),
                   [](const Device& a, const Device& b) { return a.id < b.id; });
  for (Device& d : s->devices) {
    std::stable_sort(d.queues.begin(), d.queues.end(),
                     [](const Queue& a, const Queue& b) { return a.index < b.index; });
    std::stable_sort(d.memory_budget.heaps.begin(), d.memory_budget.heaps.end(),
                     [](const MemoryHeap& a, const MemoryHeap& b) { return a.index < b.index; });
  }
  std::stable_sort(s->modules.begin(), s->modules.end(), [](const Module& a, const Module& b) {
    return std::tie(a.base, a.path) < std::tie(b.base, b.path);
  });
}

Snapshot read_snapshot(const std::string& path, const ReadOptions& options) {
  // Regular files, and pipes (vkleak show <(zcat x.json.gz)); never a named FIFO or a device.
  OpenedInput in;
  std::string error;
  if (!open_input_file(path, &in, &error)) throw SnapshotError(path, error);
  // A size of 0 is not proof of emptiness: /proc files say 0 and have content. The parser reads
  // to the end (bounded by max_file_bytes) and says "file is empty" when it was.
  if (!in.is_pipe) {
    if (in.size > options.max_file_bytes) {
      throw SnapshotError(path, "file is " + std::to_string(in.size) +
                                    " bytes, more than the limit of " +
                                    std::to_string(options.max_file_bytes));
    }
  }

  Snapshot snapshot;
  snapshot.path = path;
  parse_snapshot(in.fd.get(), path, in.size, options, &snapshot);
  put_in_canonical_order(&snapshot);
  return snapshot;
}

bool parse_snapshot_file_name(const std::string& name, SnapshotFile* out) {
  format::FileName parts;
  if (!format::parse_file_name(name, &parts)) return false;
  out->pid = parts.pid;
  out->run_id = std::string(parts.run_id);
  out->sequence = parts.sequence;
  out->reason = std::string(parts.reason);
  return true;
}

std::vector<SnapshotFile> read_snapshot_dir(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    throw SnapshotError(dir, ec ? "cannot read directory: " + ec.message() : "is not a directory");
  }
  std::vector<SnapshotFile> files;
  fs::directory_iterator it(dir, ec);
  if (ec) throw SnapshotError(dir, "cannot read directory: " + ec.message());
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) throw SnapshotError(dir, "cannot read directory: " + ec.message());
    SnapshotFile file;
    if (!parse_snapshot_file_name(it->path().filename().string(), &file)) continue;
    std::error_code type_ec;
    // A link named like a snapshot whose target is gone is a snapshot that cannot be read, not
    // a file to pass over in silence (the run would look complete without it).
    if (it->is_symlink(type_ec) && !it->exists(type_ec)) {
      std::error_code link_ec;
      const fs::path target = fs::read_symlink(it->path(), link_ec);
      throw SnapshotError(it->path().string(),
                          "is a dangling symbolic link" +
                              (link_ec ? std::string()
                                       : " (its target " + quote_printable(target.string(), 200) +
                                             " does not exist)"));
    }
    if (!it->is_regular_file(type_ec)) continue;
    file.path = it->path().string();
    files.push_back(std::move(file));
  }
  if (ec) throw SnapshotError(dir, "cannot read directory: " + ec.message());
  std::sort(files.begin(), files.end(), [](const SnapshotFile& a, const SnapshotFile& b) {
    if (a.pid != b.pid) return a.pid < b.pid;
    if (a.run_id != b.run_id) return a.run_id < b.run_id;
    if (a.sequence != b.sequence) return a.sequence < b.sequence;
    return a.path < b.path;
  });
  return files;
}

}  // namespace vkleak
