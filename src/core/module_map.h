// Maps absolute addresses to the snapshot's modules.
#pragma once

#include <cstdint>
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

// The Vulkan loader (libvulkan.so*) and layers (libVkLayer_*): frames there are plumbing between
// the application's call and vkleak's layer, not where the object was made.
bool is_vulkan_runtime_module(std::string_view path);

// How many leading (innermost) frames are in Vulkan runtime modules. Returns 0 when every frame
// is, so a call site never ends up with no frames at all.
size_t leading_runtime_frames(const std::vector<uint64_t>& frames, const ModuleMap& map);

}  // namespace vkleak
