// Which modules are the "Vulkan stack" between a program's own code and the GPU: the loader,
// layers, drivers (ICDs) and the libraries that translate another API to Vulkan (GL on zink,
// D3D on Vulkan, WebGPU). A call site's frames in them say how a call reached Vulkan, not where
// the program made the object. One list for the layer (what counts toward callstack_depth) and
// the CLI (what a finding shows); users extend it with the layer setting vulkan_stack_modules
// and `vkleak report --stack-module`.
//
// Header-only and allocation-free: the layer matches with it inside Vulkan hooks.
#pragma once

#include <cstddef>
#include <string_view>

#include "shared/glob.h"

namespace vkleak {

// Shell-style patterns ('*', '?') on a module's file name. The loader and layers: plumbing
// between the caller and vkleak (the layer drops their frames above the caller's).
inline constexpr const char* kVulkanLoaderLayerPatterns[] = {
    "libvulkan.so*",
    "libVkLayer*",
    "libMangoHud*.so*",
    "libvkbasalt.so*",
};
// The rest of the stack: drivers and translation libraries.
inline constexpr const char* kVulkanStackModulePatterns[] = {
    // Drivers.
    "libvulkan_lvp.so*",
    "libvulkan_radeon.so*",
    "libvulkan_intel*.so*",
    "libvulkan_nouveau.so*",
    "libvulkan_virtio.so*",
    "libvulkan_freedreno.so*",
    "libvulkan_broadcom.so*",
    "libvulkan_panfrost.so*",
    "libvulkan_powervr*.so*",
    "libvulkan_asahi.so*",
    "libvulkan_dzn.so*",
    "libvulkan_gfxstream.so*",
    "amdvlk*.so*",
    "libGLX_nvidia.so*",
    "libnvidia-*.so*",
    "libMoltenVK*",
    // Other APIs on Vulkan: Mesa's GL drivers (zink lives in the gallium megadriver) and the GL
    // dispatch libraries in front of them, DXVK, vkd3d, WebGPU (wgpu, Dawn).
    "*_dri.so",
    "libgallium*.so*",
    "libzink*.so*",
    "libGL.so*",
    "libGLX.so*",
    "libGLX_mesa.so*",
    "libGLdispatch.so*",
    "libglapi.so*",
    "libEGL.so*",
    "libEGL_mesa.so*",
    "libOpenGL.so*",
    "libGLESv1_CM.so*",
    "libGLESv2.so*",
    "libdxvk*.so*",
    "libvkd3d*.so*",
    "libwgpu*.so*",
    "libdawn*.so*",
    "libwebgpu_dawn*.so*",
};

// Shell-style match of `name` against `pattern` (glob.h).
inline bool stack_pattern_matches(std::string_view pattern, std::string_view name) noexcept {
  return glob_matches(pattern, name);
}

// A pattern with a '/' matches the whole path, else the file name.
inline bool stack_module_matches(std::string_view pattern, std::string_view path) noexcept {
  if (pattern.find('/') != std::string_view::npos) return stack_pattern_matches(pattern, path);
  const size_t slash = path.rfind('/');
  return stack_pattern_matches(pattern,
                               slash == std::string_view::npos ? path : path.substr(slash + 1));
}

inline bool is_vulkan_loader_or_layer_module(std::string_view path) noexcept {
  for (const char* pattern : kVulkanLoaderLayerPatterns)
    if (stack_module_matches(pattern, path)) return true;
  return false;
}

inline bool is_builtin_vulkan_stack_module(std::string_view path) noexcept {
  if (is_vulkan_loader_or_layer_module(path)) return true;
  for (const char* pattern : kVulkanStackModulePatterns)
    if (stack_module_matches(pattern, path)) return true;
  return false;
}

}  // namespace vkleak
