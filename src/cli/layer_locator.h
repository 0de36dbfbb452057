// Finds the directory holding the layer's manifest, so `vkleak run` needs no manual setup.
#pragma once

#include <string>
#include <vector>

namespace vkleak::cli {

inline constexpr char kLayerName[] = "VK_LAYER_VKLEAK_tracker";
inline constexpr char kManifestName[] = "VkLayer_vkleak.json";

struct LayerSearch {
  std::string dir;                  // empty when not found
  std::vector<std::string> looked;  // the places tried, in order, for the error message
  std::string error;                // set when not found
};

struct LayerSearchInputs {
  std::string env_layer_dir;    // $VKLEAK_LAYER_DIR, empty when unset
  std::string exe_dir;          // directory of the running vkleak binary
  std::string build_bin_dir;    // where the build tree puts vkleak
  std::string build_layer_dir;  // where the build tree puts the manifest
};

// In order: $VKLEAK_LAYER_DIR; the build-tree manifest when vkleak runs from the build tree;
// <exe dir>/../share/vulkan/explicit_layer.d (an installed vkleak).
LayerSearch locate_layer_dir(const LayerSearchInputs& inputs);

// The layer library the manifest in dir names, as the loader reads library_path: relative to
// the manifest's directory when it has a '/', else a bare name the dynamic linker searches.
// Empty with *error set when the manifest cannot be read.
std::string manifest_library(const std::string& dir, std::string* error);

// Whether the layer library that the manifest in dir names would load, as the Vulkan loader
// loads it: library_path relative to the manifest's directory when it has a '/', else searched
// by the dynamic linker; dlopen(RTLD_NOW | RTLD_LOCAL) in a forked child, so that nothing of the
// library stays in this process. Empty when it loads, else why not (the loader would skip the
// layer without failing vkCreateInstance, and the program would run untracked).
std::string check_layer_library(const std::string& dir);

// libvkleak_exit_hook.so beside the layer library the manifest in `manifest_dir` names (see
// manifest_library); empty when the manifest names a bare file name (found by the dynamic
// linker's search) or the hook library is not there.
std::string exit_hook_library(const std::string& manifest_dir);

// The inputs of this process: environment, /proc/self/exe and the compiled-in build paths.
LayerSearchInputs current_layer_search_inputs();

}  // namespace vkleak::cli
