// Writes a snapshot's plain data (snapshot_model.h) as the JSON of the snapshot contract
// (src/format/): one function per object of the format, every key and enum string from the
// contract. Runs on the writer thread; tests/format round-trips it through the CLI's reader.
#pragma once

#include "snapshot/json_writer.h"
#include "snapshot/snapshot_model.h"

namespace vkleak {

void serialize_snapshot(JsonWriter& w, const model::Snapshot& s);

}  // namespace vkleak
