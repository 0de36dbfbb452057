// JSON snapshots: collected under the shard locks (cheap copies), written by a writer thread to
// a temporary file and renamed into place, so a crash mid-write never leaves a corrupt file
// under the final name. Format: the contract in src/format/ (schema:
// src/schema/vkleak-snapshot.schema.json). snapshot_collect.h copies the tables into the plain
// model, snapshot_serialize.h writes it; this file runs the writer thread and the file writes.
#pragma once

#include <cstdint>
#include <string>

#include "base/settings.h"
#include "format/snapshot_format.h"

namespace vkleak {

struct DeviceState;
struct InstanceState;

// Why a snapshot is taken: the contract's reasons (src/format/). kCrash: a fatal signal
// (crash_snapshot.h), label: the signal's name; kOutOfDeviceMemory, kOutOfHostMemory,
// kDeviceLost: a command returned the error (error_snapshot.h), label: the command.
using SnapshotReason = format::Reason;
inline const char* to_string(SnapshotReason r) noexcept {
  return format::name(r).data();  // the contract's strings are NUL-terminated literals
}

// Copies the records on the calling thread (so the snapshot is exact at this point of the app's
// calls: a memcpy-speed copy under each shard's lock) and hands the rest (edges, parents,
// in-flight state, JSON) to the writer thread. `device`/`instance` restrict the snapshot to what
// that device/instance owns (destroy snapshots); both null = everything in the process.
void snapshot_now(SnapshotReason reason, DeviceState* device, InstanceState* instance,
                  const std::string& label) noexcept;

// Collects and writes on the calling thread, now: the crash thread's snapshot (the writer may
// be busy or be the thread that crashed).
void snapshot_sync(SnapshotReason reason, const std::string& label) noexcept;

// vkleak_snapshot() of the C API (include/vkleak/vkleak.h): a trigger snapshot with this label,
// written on the calling thread now. 0, or the errno of the failed write.
int snapshot_requested(const std::string& label) noexcept;

// An instance was created: a destroy of the last instance before it is not the run's end, and
// triggers are taken again.
void note_instance_created() noexcept;

// The writer thread: started with the first instance, stopped (queue drained, joined) with the
// last one, before the loader unloads the layer. Also watches the snapshot signal and the
// trigger file.
void start_writer(const Settings& settings) noexcept;
void stop_writer() noexcept;

// Registered once: at process exit, snapshots what is still alive, then makes hooks pass
// through. Also watches _exit(), _Exit() and quick_exit() (install_quick_exit_hooks()).
void install_exit_handler() noexcept;

// The program ends without exit handlers (_exit(), _Exit(), quick_exit()). On the crash thread,
// within its bound: the writer's queue, then what exit() would have written (the exit snapshot;
// with no instance left, the last instance's snapshot marked as the run's end). label: how the
// program ended, the exit snapshot's label ("_exit" for _exit() and _Exit(), "quick_exit").
void snapshot_at_quick_exit(const char* label) noexcept;
// Without the crash thread (none after the last instance's destroy), maybe in a signal handler:
// only marks the run's end, without waiting for a lock or logging.
void mark_run_end_at_quick_exit() noexcept;

}  // namespace vkleak
