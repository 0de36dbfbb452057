// Fuzzes the snapshot reader. Any bytes must give a snapshot or a SnapshotError: never a crash,
// a hang, a leak or another exception. A snapshot it returns must also keep the model's
// invariants that every command indexes by without checking (interned indices in range, side
// tables sorted by object index), so the summaries run on it too.
//
// Differential: the reader's default (the fast parser, falling back to nlohmann's) must give
// exactly what nlohmann's parser alone gives: the same model, or the same error message.
//
// The same file is the libFuzzer target (clang, -fsanitize=fuzzer) and, with corpus_driver.cpp,
// a plain regression program built by the main compiler.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <tuple>
#include <vector>

#include "core/snapshot.h"
#include "core/snapshot_reader.h"
#include "core/summary.h"
#include "shared/text.h"

namespace {

void require(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz_snapshot_reader: invariant broken: %s\n", what);
  std::abort();
}

bool valid_name(const vkleak::Snapshot& s, int32_t name) {
  return name == vkleak::kNoName || (name >= 0 && static_cast<size_t>(name) < s.names.size());
}

bool valid_callsite(const vkleak::Snapshot& s, int32_t callsite) {
  return callsite == vkleak::kNoCallsite ||
         (callsite >= 0 && static_cast<size_t>(callsite) < s.callsites.size());
}

template <typename T>
void require_sorted_side_table(const std::vector<T>& table, size_t objects, const char* what) {
  for (size_t i = 0; i < table.size(); ++i) {
    require(table[i].object < objects, what);
    // One entry per object at most, in object order: lookups binary-search these.
    require(i == 0 || table[i - 1].object < table[i].object, what);
  }
}

void check_model(const vkleak::Snapshot& s) {
  require(s.version >= vkleak::format::kOldestVersion && s.version <= vkleak::format::kVersion,
          "version in range");
  const size_t n = s.objects.size();
  for (const vkleak::Object& o : s.objects) {
    require(o.id != 0, "object ids start at 1");
    require(o.type < s.type_names.size(), "object type index");
    require(valid_name(s, o.name), "object name index");
    require(valid_callsite(s, o.callsite), "object call site index");
    // What the printers do with every type and name.
    (void)vkleak::printable(s.type_name(o));
    if (const std::string* name = s.name(o)) (void)vkleak::quote_printable(*name, 40);
  }
  require_sorted_side_table(s.last_uses, n, "last_uses sorted and in range");
  require_sorted_side_table(s.memory_bindings, n, "memory_bindings sorted and in range");
  for (size_t i = 0; i < s.edges.size(); ++i) {
    const vkleak::Edge& e = s.edges[i];
    require(e.from < n, "edge source index");
    require(i == 0 || s.edges[i - 1].from <= e.from, "edges sorted by source");
    require(e.type < s.type_names.size(), "edge type index");
    require(e.kind < s.edge_kinds.size(), "edge kind index");
    require(valid_name(s, e.name), "edge name index");
  }
  for (const vkleak::DestroyedObject& d : s.destroyed) {
    require(d.type < s.type_names.size(), "destroyed type index");
    require(valid_name(s, d.name), "destroyed name index");
    require(valid_callsite(s, d.callsite), "destroyed call site index");
  }
  for (size_t i = 0; i < n; ++i) {
    (void)vkleak::last_use_of(s, i);
    (void)vkleak::memory_of(s, i);
    auto [first, last] = vkleak::edges_of(s, i);
    for (const vkleak::Edge* e = first; e != last; ++e) require(e->from == i, "edges_of");
  }
  const std::vector<vkleak::TypeTotal> totals = vkleak::type_totals(s);
  (void)vkleak::check_counts(s, totals);
  uint64_t grouped = 0;
  for (const vkleak::CallsiteGroup& g : vkleak::group_by_callsite(s)) grouped += g.count;
  require(grouped == n, "every object in one call-site group");
}

// --- the same model, whichever parser read it ---------------------------------------------------

// Interned indices may legitimately differ; what they stand for may not.
std::string type_of(const vkleak::Snapshot& s, uint16_t type) {
  return type < s.type_names.size() ? s.type_names[type] : "<bad type>";
}
std::string name_of(const vkleak::Snapshot& s, int32_t name) {
  if (name == vkleak::kNoName) return "<null>";
  return valid_name(s, name) ? s.names[static_cast<size_t>(name)] : "<bad name>";
}
std::string kind_of(const vkleak::Snapshot& s, uint16_t kind) {
  return kind < s.edge_kinds.size() ? s.edge_kinds[kind] : "<bad kind>";
}

auto object_key(const vkleak::Snapshot& s, const vkleak::Object& o) {
  return std::make_tuple(o.id, o.handle, o.size, o.owner, o.parent, o.frame, o.time_ms, o.callsite,
                         name_of(s, o.name), type_of(s, o.type), o.refs, static_cast<int>(o.origin),
                         o.in_flight);
}
auto edge_key(const vkleak::Snapshot& s, const vkleak::Edge& e) {
  return std::make_tuple(e.from, kind_of(s, e.kind), type_of(s, e.type), e.to, e.handle,
                         name_of(s, e.name), e.slot, e.offset, e.size);
}
auto destroyed_key(const vkleak::Snapshot& s, const vkleak::DestroyedObject& d) {
  return std::make_tuple(d.id, type_of(s, d.type), d.handle, name_of(s, d.name), d.owner, d.frame,
                         d.destroyed_frame, d.size, d.callsite);
}
auto event_key(const vkleak::Event& e) {
  std::vector<std::tuple<int64_t, std::string, std::optional<std::string>, std::string>> path;
  for (const auto& p : e.path) path.emplace_back(p.id, p.type, p.name, p.relation);
  return std::make_tuple(e.kind, e.owner, e.type, e.handle, e.object, e.name, e.frame, e.time_ms,
                         e.has_submission, e.submission_queue, e.submission_serial,
                         e.submission_frame, path, e.message);
}

template <typename T, typename Key>
void require_same_list(const std::vector<T>& a, const std::vector<T>& b, Key key,
                       const char* what) {
  require(a.size() == b.size(), what);
  for (size_t i = 0; i < a.size(); ++i) require(key(a[i]) == key(b[i]), what);
}

void require_same(const vkleak::Snapshot& a, const vkleak::Snapshot& b) {
  require(std::tie(a.version, a.producer_name, a.producer_version, a.pid, a.sequence, a.executable,
                   a.reason, a.scope_device, a.scope_instance, a.frame, a.frame_boundary, a.time_ms,
                   a.degraded, a.label, a.events_dropped) ==
              std::tie(b.version, b.producer_name, b.producer_version, b.pid, b.sequence,
                       b.executable, b.reason, b.scope_device, b.scope_instance, b.frame,
                       b.frame_boundary, b.time_ms, b.degraded, b.label, b.events_dropped),
          "same: top-level fields");
  require_same_list(
      a.instances, b.instances,
      [](const vkleak::Instance& i) {
        return std::tie(i.id, i.handle, i.application, i.engine, i.api_version);
      },
      "same: instances");
  require_same_list(
      a.devices, b.devices,
      [](const vkleak::Device& d) {
        std::vector<std::tuple<int64_t, uint64_t, uint64_t, uint64_t>> queues;
        for (const auto& q : d.queues)
          queues.emplace_back(q.index, q.handle, q.submitted, q.retired);
        return std::make_tuple(d.id, d.handle, d.instance, d.physical_device, d.frame, d.submits,
                               d.presents, d.degraded, queues);
      },
      "same: devices");
  require(a.objects.size() == b.objects.size(), "same: object count");
  for (size_t i = 0; i < a.objects.size(); ++i) {
    require(object_key(a, a.objects[i]) == object_key(b, b.objects[i]), "same: objects");
  }
  require_same_list(
      a.last_uses, b.last_uses,
      [](const vkleak::LastUse& u) { return std::tie(u.object, u.frame, u.queue, u.serial); },
      "same: last uses");
  require_same_list(
      a.memory_bindings, b.memory_bindings,
      [](const vkleak::MemoryBinding& m) { return std::tie(m.object, m.memory, m.offset, m.size); },
      "same: memory bindings");
  require(a.edges.size() == b.edges.size(), "same: edge count");
  for (size_t i = 0; i < a.edges.size(); ++i) {
    require(edge_key(a, a.edges[i]) == edge_key(b, b.edges[i]), "same: edges");
  }
  require(a.destroyed.size() == b.destroyed.size(), "same: destroyed count");
  for (size_t i = 0; i < a.destroyed.size(); ++i) {
    require(destroyed_key(a, a.destroyed[i]) == destroyed_key(b, b.destroyed[i]),
            "same: destroyed");
  }
  require_same_list(a.events, b.events, event_key, "same: events");
  require(a.callsites == b.callsites, "same: call sites");
  require_same_list(
      a.modules, b.modules,
      [](const vkleak::Module& m) { return std::tie(m.path, m.base, m.size, m.bias, m.build_id); },
      "same: modules");
  require(a.counts.size() == b.counts.size(), "same: counts");
  for (auto ia = a.counts.begin(), ib = b.counts.begin(); ia != a.counts.end(); ++ia, ++ib) {
    require(ia->first == ib->first && ia->second.live == ib->second.live &&
                ia->second.bytes == ib->second.bytes,
            "same: counts");
  }
}

// A snapshot, or the error message.
struct Outcome {
  std::optional<vkleak::Snapshot> snapshot;
  std::string error;
};

Outcome read(const std::string& path, vkleak::ParserChoice parser) {
  vkleak::ReadOptions options;
  options.parser = parser;
  Outcome out;
  try {
    out.snapshot = vkleak::read_snapshot(path, options);
  } catch (const vkleak::SnapshotError& e) {
    // The message is what users see: it must say something and name the file.
    require(e.what()[0] != '\0', "error message not empty");
    require(e.path() == path, "error names the file");
    out.error = e.what();
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The reader's only entry point takes a path; an in-memory file named through /proc keeps the
  // fuzzer off the disk and exercises the same open/fstat/read path a real file does.
  static const int fd = memfd_create("vkleak-fuzz", MFD_CLOEXEC);
  static const std::string path = "/proc/self/fd/" + std::to_string(fd);
  require(fd >= 0, "memfd_create");
  require(ftruncate(fd, 0) == 0, "ftruncate");
  size_t written = 0;
  while (written < size) {
    const ssize_t n = pwrite(fd, data + written, size - written, static_cast<off_t>(written));
    require(n > 0, "pwrite");
    written += static_cast<size_t>(n);
  }
  const Outcome fast = read(path, vkleak::ParserChoice::kAuto);
  const Outcome reference = read(path, vkleak::ParserChoice::kReference);
  if (fast.snapshot) check_model(*fast.snapshot);
  if (reference.snapshot) check_model(*reference.snapshot);
  if (fast.snapshot.has_value() != reference.snapshot.has_value() ||
      fast.error != reference.error) {
    std::fprintf(stderr, "fast parser: %s\nreference:   %s\n",
                 fast.snapshot ? "a snapshot" : fast.error.c_str(),
                 reference.snapshot ? "a snapshot" : reference.error.c_str());
    require(false, "the fast parser and the reference parser agree");
  }
  if (fast.snapshot) require_same(*fast.snapshot, *reference.snapshot);
  return 0;
}
