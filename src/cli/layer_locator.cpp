#include "cli/layer_locator.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <system_error>

namespace vkleak::cli {

namespace fs = std::filesystem;

namespace {

bool has_manifest(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / kManifestName, ec);
}

// Realpath when it exists, so symlinked build or install trees compare equal.
fs::path canonical_or_empty(const std::string& path) {
  if (path.empty()) return {};
  std::error_code ec;
  fs::path result = fs::canonical(path, ec);
  return ec ? fs::path() : result;
}

std::string absolute_string(const fs::path& path) {
  std::error_code ec;
  fs::path result = fs::weakly_canonical(path, ec);
  if (ec) result = fs::absolute(path, ec);
  return (ec ? path : result).lexically_normal().string();
}

}  // namespace

LayerSearch locate_layer_dir(const LayerSearchInputs& in) {
  LayerSearch search;
  if (!in.env_layer_dir.empty()) {
    search.looked.push_back(in.env_layer_dir + " ($VKLEAK_LAYER_DIR)");
    if (has_manifest(in.env_layer_dir)) {
      search.dir = absolute_string(in.env_layer_dir);
      return search;
    }
    // An explicit choice that does not work is an error, not a reason to guess.
    search.error =
        "VKLEAK_LAYER_DIR is set to " + in.env_layer_dir + ", which has no " + kManifestName;
    return search;
  }

  const fs::path exe_dir = canonical_or_empty(in.exe_dir);
  const fs::path build_bin = canonical_or_empty(in.build_bin_dir);
  if (!exe_dir.empty() && !build_bin.empty() && exe_dir == build_bin) {
    search.looked.push_back(in.build_layer_dir + " (build tree)");
    if (has_manifest(in.build_layer_dir)) {
      search.dir = absolute_string(in.build_layer_dir);
      return search;
    }
  }

  if (!exe_dir.empty()) {
    const fs::path installed = exe_dir / ".." / "share" / "vulkan" / "explicit_layer.d";
    search.looked.push_back(installed.lexically_normal().string());
    if (has_manifest(installed)) {
      search.dir = absolute_string(installed);
      return search;
    }
  }

  search.error =
      std::string("cannot find the vkleak layer manifest ") + kManifestName + "; looked in: ";
  for (size_t i = 0; i < search.looked.size(); ++i) {
    if (i > 0) search.error += ", ";
    search.error += search.looked[i];
  }
  if (search.looked.empty()) search.error += "(nowhere: the vkleak binary's path is unknown)";
  search.error += ". Set VKLEAK_LAYER_DIR to the directory that holds it.";
  return search;
}

std::string exit_hook_library(const std::string& manifest_dir) {
  std::ifstream in(fs::path(manifest_dir) / kManifestName);
  const nlohmann::json manifest = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!manifest.is_object() || !manifest.contains("layer") || !manifest["layer"].is_object())
    return {};
  const nlohmann::json& path = manifest["layer"].value("library_path", nlohmann::json());
  if (!path.is_string()) return {};
  const fs::path library = path.get<std::string>();
  if (!library.has_parent_path()) return {};
  const fs::path dir =
      (library.is_absolute() ? library : fs::path(manifest_dir) / library).parent_path();
  const fs::path hook = dir / VKLEAK_EXIT_HOOK_LIBRARY;
  std::error_code ec;
  return fs::is_regular_file(hook, ec) ? absolute_string(hook) : std::string();
}

LayerSearchInputs current_layer_search_inputs() {
  LayerSearchInputs in;
  if (const char* env = std::getenv("VKLEAK_LAYER_DIR")) in.env_layer_dir = env;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) in.exe_dir = exe.parent_path().string();
  in.build_bin_dir = VKLEAK_BUILD_BIN_DIR;
  in.build_layer_dir = VKLEAK_BUILD_LAYER_DIR;
  return in;
}

}  // namespace vkleak::cli
