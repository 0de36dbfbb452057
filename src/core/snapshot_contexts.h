// The reader's contexts: one per kind of JSON container of a snapshot, with the contract's
// keys of each (src/format/snapshot_fields.h) and the containers those keys hold.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "format/snapshot_fields.h"

namespace vkleak::reader_detail {

// Where the parser is: one entry per open JSON container.
enum class Ctx : uint8_t {
  kRoot,
  kTop,
  kProducer,
  kScope,
  kErrorResults,
  kInstances,
  kInstance,
  kDevices,
  kDevice,
  kQueues,
  kQueue,
  kMemoryBudget,
  kHeaps,
  kHeap,
  kUnwrittenList,
  kUnwritten,
  kObjects,
  kObject,
  kLastUse,
  kMemory,
  kEdges,
  kEdge,
  kDestroyedList,
  kDestroyed,
  kEvents,
  kEvent,
  kSubmission,
  kEventCreated,
  kEventFirstDestroy,
  kPath,
  kPathStep,
  kCallsites,
  kCallsite,
  kFrames,
  kModules,
  kModule,
  kCounts,
  kCount,
};

// The element context of an array context; kRoot when ctx is not an array.
inline Ctx element_of(Ctx ctx) {
  switch (ctx) {
    case Ctx::kInstances:
      return Ctx::kInstance;
    case Ctx::kDevices:
      return Ctx::kDevice;
    case Ctx::kQueues:
      return Ctx::kQueue;
    case Ctx::kHeaps:
      return Ctx::kHeap;
    case Ctx::kUnwrittenList:
      return Ctx::kUnwritten;
    case Ctx::kObjects:
      return Ctx::kObject;
    case Ctx::kEdges:
      return Ctx::kEdge;
    case Ctx::kDestroyedList:
      return Ctx::kDestroyed;
    case Ctx::kEvents:
      return Ctx::kEvent;
    case Ctx::kPath:
      return Ctx::kPathStep;
    case Ctx::kCallsites:
      return Ctx::kCallsite;
    case Ctx::kFrames:
      return Ctx::kFrames;  // scalar elements
    case Ctx::kModules:
      return Ctx::kModule;
    default:
      return Ctx::kRoot;
  }
}

inline bool is_array(Ctx ctx) {
  return element_of(ctx) != Ctx::kRoot;
}

template <size_t N>
constexpr int field_index(const std::string_view (&names)[N], std::string_view key) {
  for (size_t i = 0; i < N; ++i) {
    if (names[i] == key) return static_cast<int>(i);
  }
  return -1;
}

// --- The keys of each object context: the contract's field lists (src/format/). -------------

using ObjectSpec = format::Fields;
using namespace format;  // NOLINT: the field namespaces: top::kFormat, object::kId, ...

inline constexpr ObjectSpec kNoSpec{};

// A table, not a function with statics: this is called for every key.
constexpr const ObjectSpec& spec_of(Ctx ctx) {
  switch (ctx) {
    case Ctx::kTop:
      return format::kTop;
    case Ctx::kProducer:
      return format::kProducer;
    case Ctx::kScope:
      return format::kScope;
    case Ctx::kErrorResults:
      return format::kErrorResults;
    case Ctx::kInstance:
      return format::kInstance;
    case Ctx::kDevice:
      return format::kDevice;
    case Ctx::kQueue:
      return format::kQueue;
    case Ctx::kMemoryBudget:
      return format::kMemoryBudget;
    case Ctx::kHeap:
      return format::kHeap;
    case Ctx::kUnwritten:
      return format::kUnwritten;
    case Ctx::kObject:
      return format::kObject;
    case Ctx::kLastUse:
      return format::kLastUse;
    case Ctx::kMemory:
      return format::kMemory;
    case Ctx::kEdge:
      return format::kEdge;
    case Ctx::kDestroyed:
      return format::kDestroyed;
    case Ctx::kEvent:
      return format::kEvent;
    case Ctx::kSubmission:
      return format::kSubmission;
    case Ctx::kEventCreated:
    case Ctx::kEventFirstDestroy:
      return format::kWhen;
    case Ctx::kPathStep:
      return format::kPathStep;
    case Ctx::kCallsite:
      return format::kCallsite;
    case Ctx::kModule:
      return format::kModule;
    case Ctx::kCount:
      return format::kCountFields;
    default:
      return kNoSpec;
  }
}

inline int lookup_field(const ObjectSpec& spec, std::string_view key) {
  if (key.empty()) return -1;
  // Size and first byte rule out almost every other key without a memcmp call.
  for (int i = 0; i < spec.count; ++i) {
    const std::string_view name = spec.names[i];
    if (name.size() == key.size() && name[0] == key[0] && name == key) {
      return spec.opaque & bit(i) ? -1 : i;  // opaque: ignored as an unknown key is
    }
  }
  return -1;
}

// The container a key of an object context holds, if it holds one.
struct ChildSpec {
  Ctx ctx;
  bool object;  // else an array
};
inline std::optional<ChildSpec> child_of(Ctx ctx, int field) {
  switch (ctx) {
    case Ctx::kTop:
      switch (field) {
        case top::kProducer:
          return ChildSpec{Ctx::kProducer, true};
        case top::kScope:
          return ChildSpec{Ctx::kScope, true};
        case top::kErrorResults:
          return ChildSpec{Ctx::kErrorResults, true};
        case top::kCounts:
          return ChildSpec{Ctx::kCounts, true};
        case top::kInstances:
          return ChildSpec{Ctx::kInstances, false};
        case top::kDevices:
          return ChildSpec{Ctx::kDevices, false};
        case top::kObjects:
          return ChildSpec{Ctx::kObjects, false};
        case top::kCallsites:
          return ChildSpec{Ctx::kCallsites, false};
        case top::kModules:
          return ChildSpec{Ctx::kModules, false};
        case top::kDestroyed:
          return ChildSpec{Ctx::kDestroyedList, false};
        case top::kEvents:
          return ChildSpec{Ctx::kEvents, false};
        case top::kUnwritten:
          return ChildSpec{Ctx::kUnwrittenList, false};
      }
      break;
    case Ctx::kDevice:
      if (field == device::kQueues) return ChildSpec{Ctx::kQueues, false};
      if (field == device::kMemoryBudget) return ChildSpec{Ctx::kMemoryBudget, true};
      break;
    case Ctx::kMemoryBudget:
      if (field == memory_budget::kHeaps) return ChildSpec{Ctx::kHeaps, false};
      break;
    case Ctx::kObject:
      if (field == object::kLastUse) return ChildSpec{Ctx::kLastUse, true};
      if (field == object::kMemory) return ChildSpec{Ctx::kMemory, true};
      if (field == object::kEdges) return ChildSpec{Ctx::kEdges, false};
      break;
    case Ctx::kEvent:
      if (field == event::kSubmission) return ChildSpec{Ctx::kSubmission, true};
      if (field == event::kPath) return ChildSpec{Ctx::kPath, false};
      if (field == event::kCreated) return ChildSpec{Ctx::kEventCreated, true};
      if (field == event::kFirstDestroy) return ChildSpec{Ctx::kEventFirstDestroy, true};
      break;
    case Ctx::kCallsite:
      if (field == callsite::kFrames) return ChildSpec{Ctx::kFrames, false};
      break;
    default:
      break;
  }
  return std::nullopt;
}

}  // namespace vkleak::reader_detail
