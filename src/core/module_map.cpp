#include "core/module_map.h"

#include <algorithm>

namespace vkleak {

ModuleMap::ModuleMap(const std::vector<Module>& modules) : modules_(modules) {
  by_base_.resize(modules.size());
  for (uint32_t i = 0; i < by_base_.size(); ++i) by_base_[i] = i;
  std::stable_sort(by_base_.begin(), by_base_.end(),
                   [&](uint32_t a, uint32_t b) { return modules_[a].base < modules_[b].base; });
}

int ModuleMap::find(uint64_t address) const {
  // The last module starting at or below address; modules do not overlap in a real process.
  auto it = std::upper_bound(by_base_.begin(), by_base_.end(), address,
                             [&](uint64_t a, uint32_t i) { return a < modules_[i].base; });
  if (it == by_base_.begin()) return -1;
  const Module& m = modules_[*(it - 1)];
  if (address - m.base >= m.size) return -1;  // no overflow: address >= base here
  return static_cast<int>(*(it - 1));
}

std::string_view base_name(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool is_vulkan_runtime_module(std::string_view path) {
  const std::string_view name = base_name(path);
  return name.rfind("libvulkan.so", 0) == 0 || name.rfind("libVkLayer_", 0) == 0;
}

size_t leading_runtime_frames(const std::vector<uint64_t>& frames, const ModuleMap& map) {
  size_t n = 0;
  while (n < frames.size()) {
    const int m = map.find(frames[n]);
    if (m < 0 || !is_vulkan_runtime_module(map.modules()[static_cast<size_t>(m)].path)) break;
    ++n;
  }
  return n == frames.size() ? 0 : n;
}

}  // namespace vkleak
