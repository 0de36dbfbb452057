// Reads snapshot files into the compact model, streaming (SAX): no JSON DOM is ever built, so a
// 1M-object snapshot costs about its model size in memory.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "core/snapshot.h"

namespace vkleak {

enum class ParserChoice {
  kAuto,       // the fast parser for regular files, nlohmann's when it cannot settle the input
  kReference,  // nlohmann's SAX parser only
};

struct ReadOptions {
  // Larger files are refused before parsing.
  uint64_t max_file_bytes = uint64_t{8} << 30;
  // Deepest nesting of arrays/objects accepted anywhere (the format itself needs 5).
  uint32_t max_depth = 64;
  // Longest single token (string, number) or run of whitespace, so hostile input cannot make the
  // parser buffer gigabytes.
  uint64_t max_token_bytes = uint64_t{16} << 20;
  ParserChoice parser = ParserChoice::kAuto;
  // When set, the bytes read are added to it as reading goes (for progress displays; several
  // readers may share one counter).
  std::atomic<uint64_t>* progress_bytes = nullptr;
};

// Puts a snapshot in its canonical order (issue 36: what is read from it must not depend on the
// order the layer wrote it in, which is hash order of handle values): objects by id, their side
// tables and edges by object and then by content, destroyed objects by id, events by frame, time
// and content, instances and devices by id, queues and heaps by index, modules by address; the
// interned tables (type names, names, edge kinds) sorted. Every index into them is remapped. The
// call-site table keeps its order (an index names a call site; nothing ranks by it).
// read_snapshot() does it: every reader sees the same snapshot whatever the file's order.
void put_in_canonical_order(Snapshot* snapshot);

// Reads and validates one snapshot (format versions 1 and 2). Throws SnapshotError on any
// problem: missing or unreadable file, directory, named FIFO or device (refused without blocking;
// anonymous pipes are read), empty or oversized file, invalid or truncated
// JSON, a foreign document, a newer format version, missing keys, wrong types, bad handles,
// dangling call-site indices. Unknown keys are ignored (newer producers of the same version may
// add some). A call site keeps at most format::kMaxCallsiteFrames frames, the innermost, as the
// layer writes them: more are checked and dropped, so frames cannot grow what follows. A file
// whose size reads 0 (a /proc file) is read all the same; "file is empty" when it was.
Snapshot read_snapshot(const std::string& path, const ReadOptions& options = {});

// One snapshot file of a run, named vkleak-<pid>-<runid>-<sequence>-<reason>.json (or, by layers
// before run ids, vkleak-<pid>-<sequence>-<reason>.json: run_id empty).
struct SnapshotFile {
  std::string path;
  uint64_t pid = 0;
  std::string run_id;
  uint64_t sequence = 0;
  std::string reason;
};

// Parses a snapshot file name (no directory part); false when it is not one.
bool parse_snapshot_file_name(const std::string& name, SnapshotFile* out);

// The snapshot files in dir sorted by (pid, run id, sequence). Other files (including the writer's
// *.tmp files) are ignored. Throws SnapshotError when dir cannot be listed or when a link named
// like a snapshot points nowhere.
std::vector<SnapshotFile> read_snapshot_dir(const std::string& dir);

}  // namespace vkleak
