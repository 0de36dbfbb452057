// The streaming (SAX) parser behind read_snapshot(): JSON from a file descriptor into the model,
// validated against the snapshot schema as it goes.
#pragma once

#include <cstdint>
#include <string>

#include "core/snapshot.h"
#include "core/snapshot_reader.h"

namespace vkleak {

// Reads fd to its end into *out. path is only for messages; size_hint is the file size when
// known (0 otherwise). Throws SnapshotError.
void parse_snapshot(int fd, const std::string& path, uint64_t size_hint, const ReadOptions& options,
                    Snapshot* out);

}  // namespace vkleak
