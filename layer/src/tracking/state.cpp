// Per-instance and per-device state (see state.h).
#include "tracking/state.h"

namespace vkleak {

// The scope that holds objects of `type` when referenced from `scope`: instance-level targets
// (surfaces, displays) live in the instance's table.
Scope& target_scope(Scope& scope, ObjectType type) noexcept {
  if (scope.type != ObjectType::kDevice) return scope;
  switch (type) {
    case ObjectType::kSurfaceKHR:
    case ObjectType::kDisplayKHR:
    case ObjectType::kDisplayModeKHR:
    case ObjectType::kPhysicalDevice:
    case ObjectType::kInstance:
      if (auto* inst = static_cast<DeviceState&>(scope).instance) return *inst;
      return scope;
    default:
      return scope;
  }
}

}  // namespace vkleak
