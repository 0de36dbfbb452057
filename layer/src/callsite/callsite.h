// Creation call sites: return addresses captured with the unwinder, the layer's own frames
// dropped, de-duplicated into one process-wide table shared by all devices. Ids are dense from 1.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace vkleak {

using CallsiteId = uint32_t;  // 0 = no call site (capture off or failed)
inline constexpr CallsiteId kNoCallsite = 0;

// The creation call site of the current thread's Vulkan call, de-duplicated into the shared
// table. Frames inside the layer itself are dropped. Call once per command, share across arrays.
// The check for "capture off" is inline: with call sites off a hook pays one load.
// Inlined into the hook, so that its return address is the hook's: the app's call site when
// the loader's trampoline jumped to the hook (depth 1 then needs no unwinding at all).
extern std::atomic<uint32_t> g_callstack_depth;
// The hook's frame address keys a per-thread memo of stack walks (stack_memo.h): a chain
// walked once is found again by checking its return addresses where they lie on the stack.
// `hook_return_address`: where the hook returns to (the app, the loader or a layer above);
// `hook_cfa`: the hook's canonical frame address (that return address lies just below it).
// Returns 0 when capture is off or fails.
CallsiteId capture_and_intern(uintptr_t hook_return_address, uintptr_t hook_cfa) noexcept;
// The current stack, from anywhere in the layer (no memo): for rare paths outside a hook's own
// body (an object destroyed in flight, an invalid free).
CallsiteId capture_stack_here() noexcept;
// Setting destroy_callstacks: valid destroys record their stack too (off: only the rare bad ones).
extern std::atomic<bool> g_destroy_callstacks;
__attribute__((always_inline)) inline CallsiteId capture_callsite() noexcept {
  if (g_callstack_depth.load(std::memory_order_relaxed) == 0) return kNoCallsite;
  return capture_and_intern(reinterpret_cast<uintptr_t>(__builtin_return_address(0)),
                            reinterpret_cast<uintptr_t>(__builtin_dwarf_cfa()));
}

void set_callstack_depth(uint32_t depth) noexcept;  // 0 turns capture off
uint32_t callstack_depth() noexcept;

// Re-reads which loaded modules are the Vulkan stack (src/shared/vulkan_stack.h: loader, layers,
// drivers, translation libraries, plus `user_patterns`, comma-separated, when not null): loader
// and layer frames above the app's are dropped like the layer's own, the others do not count
// toward the depth. Call when the set may change (instance creation).
void refresh_foreign_modules(const char* user_patterns) noexcept;

// Where call site `id` was, for a program to print without symbol files: its first frame
// outside the Vulkan stack, "function (module+0xoffset)" (the nearest dynamic symbol,
// demangled) or "module+0xoffset". Empty for kNoCallsite.
std::string describe_callsite(CallsiteId id);

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
