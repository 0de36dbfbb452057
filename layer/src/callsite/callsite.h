// Creation call sites: return addresses captured with the unwinder, the layer's own frames
// dropped, de-duplicated into one process-wide table shared by all devices. Ids are dense from 1.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vkleak {

void set_callstack_depth(uint32_t depth) noexcept;  // 0 turns capture off
uint32_t callstack_depth() noexcept;

// Captures and interns the current stack (tracker.h calls it through capture_callsite()).
// Returns 0 when capture is off or fails.
// `hook_return_address`: where the hook returns to (the app, the loader or a layer above);
// `hook_cfa`: the hook's canonical frame address (that return address lies just below it).
uint32_t capture_and_intern(uintptr_t hook_return_address, uintptr_t hook_cfa) noexcept;

// Re-reads which loaded modules are the Vulkan stack (src/core/vulkan_stack.h: loader, layers,
// drivers, translation libraries, plus `user_patterns`, comma-separated, when not null): loader
// and layer frames above the app's are dropped like the layer's own, the others do not count
// toward the depth. Call when the set may change (instance creation).
void refresh_foreign_modules(const char* user_patterns) noexcept;

// Copies the frames of call sites [1, count] (index 0 is an empty placeholder).
void copy_callsites(std::vector<std::vector<uintptr_t>>* out);

struct ModuleInfo {
  std::string path;
  uintptr_t start = 0;  // lowest mapped address
  uintptr_t size = 0;
  uintptr_t bias = 0;    // load bias (dlpi_addr)
  std::string build_id;  // hex, empty when absent
};

// The modules loaded now (dl_iterate_phdr), with their GNU build-ids.
std::vector<ModuleInfo> loaded_modules();

}  // namespace vkleak
