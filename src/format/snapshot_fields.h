// The snapshot contract, part 2: the keys of every JSON object of a snapshot, which of them are
// required, and which only from version 2. One namespace per object; its Field values index its
// kNames (the reader's field ids, the order of its "missing required key" checks), and
// name(Field) gives a key. Adding a field: a name here, one line in the layer's serializer
// (layer/src/snapshot/snapshot_serialize.cpp), one in the reader
// (src/core/snapshot_fields_reader.cpp) and the schema; tests/format checks that all agree.
#pragma once

#include <cstdint>
#include <string_view>

#include "format/snapshot_format.h"

namespace vkleak::format {

// The keys of one JSON object of the format.
struct Fields {
  const std::string_view* names = nullptr;
  int count = 0;
  uint32_t required = 0;  // bit i: names[i] must be present
  uint32_t since_v2 = 0;  // required only from version 2
  uint32_t opaque = 0;    // written for people, not read back ("settings")
};

constexpr uint32_t bit(int field) {
  return uint32_t{1} << field;
}

template <size_t N>
constexpr Fields fields_of(const std::string_view (&names)[N], uint32_t required,
                           uint32_t since_v2 = 0, uint32_t opaque = 0) {
  static_assert(N <= 32, "field sets are 32-bit masks");
  return Fields{names, static_cast<int>(N), required, since_v2, opaque};
}

// Every key of the table.
template <size_t N>
constexpr uint32_t all_of(const std::string_view (&)[N]) {
  return static_cast<uint32_t>((uint64_t{1} << N) - 1);
}

// The top-level object.
namespace top {
enum Field : int {
  kFormat,
  kVersion,
  kProducer,
  kPid,
  kExecutable,
  kSequence,
  kReason,
  kScope,
  kFrame,
  kFrameBoundary,
  kTimeMs,
  kDegraded,
  kInstances,
  kDevices,
  kObjects,
  kCallsites,
  kModules,
  kCounts,
  kLabel,
  kDestroyed,
  kEvents,
  kEventsDropped,
  kFinal,
  kUnwritten,
  kUnwrittenCount,
  kCoalescedSignals,
  kErrorResults,
  kSettings,  // the settings in effect, as strings: for people, not read back
  kRunId,     // the run's identity (kRunIdDigits lowercase hex digits); absent in older files
  kCount
};
inline constexpr std::string_view kNames[] = {"format",          "version",
                                              "producer",        "pid",
                                              "executable",      "sequence",
                                              "reason",          "scope",
                                              "frame",           "frame_boundary",
                                              "time_ms",         "degraded",
                                              "instances",       "devices",
                                              "objects",         "callsites",
                                              "modules",         "counts",
                                              "label",           "destroyed",
                                              "events",          "events_dropped",
                                              "final",           "unwritten",
                                              "unwritten_count", "coalesced_signals",
                                              "error_results",   "settings",
                                              "run_id"};
}  // namespace top
inline constexpr Fields kTop = fields_of(
    top::kNames,
    bit(top::kFormat) | bit(top::kVersion) | bit(top::kProducer) | bit(top::kPid) |
        bit(top::kSequence) | bit(top::kReason) | bit(top::kFrame) | bit(top::kTimeMs) |
        bit(top::kInstances) | bit(top::kDevices) | bit(top::kObjects) | bit(top::kCallsites) |
        bit(top::kModules) | bit(top::kCounts) | bit(top::kDestroyed) | bit(top::kEvents),
    bit(top::kDestroyed) | bit(top::kEvents), bit(top::kSettings));

// "producer": who wrote it.
namespace producer {
enum Field : int { kName, kVersion, kCount };
inline constexpr std::string_view kNames[] = {"name", "version"};
}  // namespace producer
inline constexpr Fields kProducer = fields_of(producer::kNames, all_of(producer::kNames));

// "scope": the device or instance a destroy snapshot is about (one of the two).
namespace scope {
enum Field : int { kDevice, kInstance, kCount };
inline constexpr std::string_view kNames[] = {"device", "instance"};
}  // namespace scope
inline constexpr Fields kScope = fields_of(scope::kNames, 0);

// "error_results": commands that returned each error so far; its keys are the error reasons.
namespace error_results {
enum Field : int { kOutOfDeviceMemory, kOutOfHostMemory, kDeviceLost, kCount };
inline constexpr std::string_view kNames[] = {kReasonNames[size_t(Reason::kOutOfDeviceMemory)],
                                              kReasonNames[size_t(Reason::kOutOfHostMemory)],
                                              kReasonNames[size_t(Reason::kDeviceLost)]};
}  // namespace error_results
inline constexpr Fields kErrorResults = fields_of(error_results::kNames, 0);

// An element of "instances".
namespace instance {
enum Field : int { kId, kHandle, kApplication, kEngine, kApiVersion, kCount };
inline constexpr std::string_view kNames[] = {"id", "handle", "application", "engine",
                                              "api_version"};
}  // namespace instance
inline constexpr Fields kInstance =
    fields_of(instance::kNames, bit(instance::kId) | bit(instance::kHandle));

// An element of "devices".
namespace device {
enum Field : int {
  kId,
  kHandle,
  kInstance,
  kPhysicalDevice,
  kFrame,
  kSubmits,
  kPresents,
  kDegraded,
  kQueues,
  kFrameBoundary,
  kFrameBoundaryAuto,
  kMemoryBudget,  // absent in files of layers before issue 29
  kCount
};
inline constexpr std::string_view kNames[] = {"id",
                                              "handle",
                                              "instance",
                                              "physical_device",
                                              "frame",
                                              "submits",
                                              "presents",
                                              "degraded",
                                              "queues",
                                              "frame_boundary",
                                              "frame_boundary_auto",
                                              "memory_budget"};
}  // namespace device
inline constexpr Fields kDevice =
    fields_of(device::kNames, bit(device::kId) | bit(device::kHandle) | bit(device::kInstance) |
                                  bit(device::kFrame));

// A device's "memory_budget": its memory heaps and, where the driver has VK_EXT_memory_budget,
// each heap's budget and usage as the driver reported them at "frame" / "time_ms" (sampled on
// the app's thread when a snapshot is asked for; a snapshot taken off it, at a signal, a crash
// or exit, carries the device's latest sample).
namespace memory_budget {
enum Field : int { kStatus, kEnabledBy, kFrame, kTimeMs, kHeaps, kCount };
inline constexpr std::string_view kNames[] = {"status", "enabled_by", "frame", "time_ms", "heaps"};
}  // namespace memory_budget
inline constexpr Fields kMemoryBudget =
    fields_of(memory_budget::kNames, bit(memory_budget::kStatus) | bit(memory_budget::kHeaps));

// An element of a "memory_budget"'s "heaps": budget and usage only when its status is sampled.
namespace heap {
enum Field : int { kIndex, kSize, kDeviceLocal, kBudget, kUsage, kCount };
inline constexpr std::string_view kNames[] = {"index", "size", "device_local", "budget", "usage"};
}  // namespace heap
inline constexpr Fields kHeap =
    fields_of(heap::kNames, bit(heap::kIndex) | bit(heap::kSize) | bit(heap::kDeviceLocal));

// An element of a device's "queues".
namespace queue {
enum Field : int { kIndex, kHandle, kSubmitted, kRetired, kCount };
inline constexpr std::string_view kNames[] = {"index", "handle", "submitted", "retired"};
}  // namespace queue
inline constexpr Fields kQueue = fields_of(queue::kNames, all_of(queue::kNames));

// An element of "unwritten": a snapshot the layer could not write.
namespace unwritten {
enum Field : int { kSequence, kReason, kError, kCount };
inline constexpr std::string_view kNames[] = {"sequence", "reason", "error"};
}  // namespace unwritten
inline constexpr Fields kUnwritten = fields_of(unwritten::kNames, all_of(unwritten::kNames));

// An element of "objects": a live object.
namespace object {
enum Field : int {
  kId,
  kType,
  kHandle,
  kName,
  kOwner,
  kParent,
  kOrigin,
  kFrame,
  kTimeMs,
  kSize,
  kCallsite,
  kRefs,
  kLastUse,
  kInFlight,
  kMemory,
  kEdges,
  kCreateFlags,  // a descriptor pool's VkDescriptorPoolCreateFlags, written when not 0
  kCount
};
inline constexpr std::string_view kNames[] = {
    "id",       "type",      "handle",  "name",  "owner",       "parent",
    "origin",   "frame",     "time_ms", "size",  "callsite",    "refs",
    "last_use", "in_flight", "memory",  "edges", "create_flags"};
}  // namespace object
// Every key but refs, memory, edges and create_flags; last_use and in_flight from version 2.
inline constexpr Fields kObject = fields_of(
    object::kNames, (bit(object::kRefs) - 1) | bit(object::kLastUse) | bit(object::kInFlight),
    bit(object::kLastUse) | bit(object::kInFlight));

// An object's "last_use": the last submission that used it.
namespace last_use {
enum Field : int { kFrame, kQueue, kSerial, kCount };
inline constexpr std::string_view kNames[] = {"frame", "queue", "serial"};
}  // namespace last_use
inline constexpr Fields kLastUse = fields_of(last_use::kNames, all_of(last_use::kNames));

// An object's "memory": the memory bound to it.
namespace memory {
enum Field : int { kId, kOffset, kSize, kCount };
inline constexpr std::string_view kNames[] = {"id", "offset", "size"};
}  // namespace memory
inline constexpr Fields kMemory = fields_of(memory::kNames, all_of(memory::kNames));

// An element of an object's "edges".
namespace edge {
enum Field : int { kKind, kTo, kType, kHandle, kName, kSlot, kOffset, kSize, kCount };
inline constexpr std::string_view kNames[] = {"kind", "to",   "type",   "handle",
                                              "name", "slot", "offset", "size"};
}  // namespace edge
inline constexpr Fields kEdge =
    fields_of(edge::kNames, bit(edge::kKind) | bit(edge::kTo) | bit(edge::kType) |
                                bit(edge::kHandle) | bit(edge::kSlot));

// An element of "destroyed": a destroyed object that edges still point at.
namespace destroyed {
enum Field : int {
  kId,
  kType,
  kHandle,
  kName,
  kOwner,
  kFrame,
  kDestroyedFrame,
  kSize,
  kCallsite,
  kDestroyCallsite,
  kCount
};
inline constexpr std::string_view kNames[] = {
    "id",   "type",     "handle",          "name", "owner", "frame", "destroyed_frame",
    "size", "callsite", "destroy_callsite"};
}  // namespace destroyed
inline constexpr Fields kDestroyed =
    fields_of(destroyed::kNames, all_of(destroyed::kNames) & ~bit(destroyed::kDestroyCallsite));

// An element of "events".
namespace event {
enum Field : int {
  kKind,
  kOwner,
  kType,
  kHandle,
  kObject,
  kName,
  kFrame,
  kTimeMs,
  kSubmission,
  kPath,
  kMessage,
  kCallsite,
  kCreated,
  kReason,
  kFirstDestroy,
  kBelongsTo,
  kCount
};
inline constexpr std::string_view kNames[] = {
    "kind",    "owner",   "type",          "handle",    "object",  "name",
    "frame",   "time_ms", "submission",    "path",      "message", "callsite",
    "created", "reason",  "first_destroy", "belongs_to"};
}  // namespace event
inline constexpr Fields kEvent =
    fields_of(event::kNames, bit(event::kKind) | bit(event::kOwner) | bit(event::kType) |
                                 bit(event::kHandle) | bit(event::kObject) | bit(event::kFrame) |
                                 bit(event::kTimeMs) | bit(event::kMessage));

// An event's "submission": the one that still used the object.
namespace submission {
enum Field : int { kQueue, kSerial, kFrame, kCount };
inline constexpr std::string_view kNames[] = {"queue", "serial", "frame"};
}  // namespace submission
inline constexpr Fields kSubmission = fields_of(submission::kNames, all_of(submission::kNames));

// An event's "created" and "first_destroy": when and where something happened.
namespace when {
enum Field : int { kFrame, kCallsite, kCount };
inline constexpr std::string_view kNames[] = {"frame", "callsite"};
}  // namespace when
inline constexpr Fields kWhen = fields_of(when::kNames, all_of(when::kNames));

// An element of an event's "path".
namespace path_step {
enum Field : int { kId, kType, kName, kRelation, kCount };
inline constexpr std::string_view kNames[] = {"id", "type", "name", "relation"};
}  // namespace path_step
inline constexpr Fields kPathStep = fields_of(path_step::kNames, all_of(path_step::kNames));

// An element of "callsites".
namespace callsite {
enum Field : int { kId, kFrames, kCount };
inline constexpr std::string_view kNames[] = {"id", "frames"};
}  // namespace callsite
inline constexpr Fields kCallsite = fields_of(callsite::kNames, all_of(callsite::kNames));

// An element of "modules".
namespace module {
enum Field : int { kPath, kBase, kSize, kBias, kBuildId, kCount };
inline constexpr std::string_view kNames[] = {"path", "base", "size", "bias", "build_id"};
}  // namespace module
inline constexpr Fields kModule =
    fields_of(module::kNames,
              bit(module::kPath) | bit(module::kBase) | bit(module::kSize) | bit(module::kBias));

// A value of "counts" (whose keys are type names).
namespace count {
enum Field : int { kLive, kBytes, kCount };
inline constexpr std::string_view kNames[] = {"live", "bytes"};
}  // namespace count
inline constexpr Fields kCountFields = fields_of(count::kNames, all_of(count::kNames));

// name(top::kFormat) == "format", ...
#define VKLEAK_FORMAT_FIELDS(ns)                                          \
  constexpr std::string_view name(ns::Field f) {                          \
    return ns::kNames[f];                                                 \
  }                                                                       \
  static_assert(std::size(ns::kNames) == static_cast<size_t>(ns::kCount), \
                #ns ": one name per field");
VKLEAK_FORMAT_FIELDS(top)
VKLEAK_FORMAT_FIELDS(producer)
VKLEAK_FORMAT_FIELDS(scope)
VKLEAK_FORMAT_FIELDS(error_results)
VKLEAK_FORMAT_FIELDS(instance)
VKLEAK_FORMAT_FIELDS(device)
VKLEAK_FORMAT_FIELDS(memory_budget)
VKLEAK_FORMAT_FIELDS(heap)
VKLEAK_FORMAT_FIELDS(queue)
VKLEAK_FORMAT_FIELDS(unwritten)
VKLEAK_FORMAT_FIELDS(object)
VKLEAK_FORMAT_FIELDS(last_use)
VKLEAK_FORMAT_FIELDS(memory)
VKLEAK_FORMAT_FIELDS(edge)
VKLEAK_FORMAT_FIELDS(destroyed)
VKLEAK_FORMAT_FIELDS(event)
VKLEAK_FORMAT_FIELDS(submission)
VKLEAK_FORMAT_FIELDS(when)
VKLEAK_FORMAT_FIELDS(path_step)
VKLEAK_FORMAT_FIELDS(callsite)
VKLEAK_FORMAT_FIELDS(module)
VKLEAK_FORMAT_FIELDS(count)
#undef VKLEAK_FORMAT_FIELDS

// Every object of the format, by its place in a snapshot (JSON-pointer-like, "*" for an array's
// elements or a map's values): what tests/format checks the schema and the writer against.
struct Place {
  std::string_view path;
  const Fields* fields;
};
inline constexpr Place kPlaces[] = {
    {"", &kTop},
    {"producer", &kProducer},
    {"scope", &kScope},
    {"error_results", &kErrorResults},
    {"instances/*", &kInstance},
    {"devices/*", &kDevice},
    {"devices/*/queues/*", &kQueue},
    {"devices/*/memory_budget", &kMemoryBudget},
    {"devices/*/memory_budget/heaps/*", &kHeap},
    {"unwritten/*", &kUnwritten},
    {"objects/*", &kObject},
    {"objects/*/last_use", &kLastUse},
    {"objects/*/memory", &kMemory},
    {"objects/*/edges/*", &kEdge},
    {"destroyed/*", &kDestroyed},
    {"events/*", &kEvent},
    {"events/*/submission", &kSubmission},
    {"events/*/created", &kWhen},
    {"events/*/first_destroy", &kWhen},
    {"events/*/path/*", &kPathStep},
    {"callsites/*", &kCallsite},
    {"modules/*", &kModule},
    {"counts/*", &kCountFields},
};

}  // namespace vkleak::format
