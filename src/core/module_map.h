// Maps absolute addresses to the snapshot's modules.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/snapshot.h"

namespace vkleak {

class ModuleMap {
 public:
  // Keeps a reference: modules must outlive the map.
  explicit ModuleMap(const std::vector<Module>& modules);

  // Index into modules of the module with base <= address < base + size, or -1.
  int find(uint64_t address) const;

  const std::vector<Module>& modules() const { return modules_; }

 private:
  const std::vector<Module>& modules_;
  std::vector<uint32_t> by_base_;  // indices into modules_, sorted by base
};

// The file name part of a path ("libfoo.so.1" for "/usr/lib/libfoo.so.1").
std::string_view base_name(std::string_view path);

// libc (or an old glibc's libpthread): where every thread starts (start_thread, clone). A call
// chain made of the Vulkan stack and these frames only is a thread the stack started.
bool is_thread_start_module(std::string_view path);

// Modules of the Vulkan stack (shared/vulkan_stack.h: the loader, layers, drivers, libraries that
// translate another API to Vulkan) and those added by set_user_stack_modules: frames there say
// how a call reached Vulkan, not where the program made the object.
bool is_vulkan_stack_module(std::string_view path);

// More patterns for is_vulkan_stack_module (`--stack-module`), for the whole process: set once,
// from the command line, before any snapshot is read.
void set_user_stack_modules(std::vector<std::string> patterns);

// The frames a call site shows: indices of those outside the Vulkan stack (an address in no
// module counts as outside), innermost first. When every frame is in the stack, all of them and
// *all_in_stack is set, so a call site never ends up with no frames at all.
std::vector<size_t> application_frames(const std::vector<uint64_t>& frames, const ModuleMap& map,
                                       bool* all_in_stack);

}  // namespace vkleak
