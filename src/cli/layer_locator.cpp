#include "cli/layer_locator.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
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

namespace {

// dlopen's error for path in a forked child ("" when it loads), or nullopt when no child could run.
std::optional<std::string> dlopen_error(const std::string& path) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return std::nullopt;
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return std::nullopt;
  }
  if (pid == 0) {
    ::close(fds[0]);
    if (::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL) == nullptr) {
      const char* error = ::dlerror();
      const std::string text = error ? error : "dlopen failed";
      [[maybe_unused]] ssize_t n = ::write(fds[1], text.data(), text.size());
    }
    ::_exit(0);  // no exit handlers, no static destructors of what was loaded
  }
  ::close(fds[1]);
  std::string error;
  char buffer[512];
  for (;;) {
    const ssize_t n = ::read(fds[0], buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0 || error.size() > 4096) break;
    error.append(buffer, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status)) return std::nullopt;  // it crashed loading: let the loader say
  return error;
}

}  // namespace

std::string manifest_library(const std::string& dir, std::string* error) {
  const fs::path manifest = fs::path(dir) / kManifestName;
  std::string library;
  try {
    std::ifstream in(manifest);
    const nlohmann::json json = nlohmann::json::parse(in);
    library = json.at("layer").at("library_path").get<std::string>();
  } catch (const std::exception& e) {
    *error = "its manifest " + manifest.string() + " cannot be read: " + e.what();
    return "";
  }
  if (library.find('/') == std::string::npos) return library;
  // The loader's rule: a relative path is relative to the manifest's directory.
  const fs::path p(library);
  return (p.is_absolute() ? p : fs::path(dir) / p).lexically_normal().string();
}

std::string check_layer_library(const std::string& dir) {
  const fs::path manifest = fs::path(dir) / kManifestName;
  std::string unreadable;
  const std::string path = manifest_library(dir, &unreadable);
  if (path.empty()) return unreadable;
  if (path.find('/') != std::string::npos) {
    std::error_code ec;
    if (!fs::exists(path, ec)) {
      return "its library " + path + " (library_path in " + manifest.string() + ") does not exist";
    }
  }
  const std::optional<std::string> error = dlopen_error(path);
  if (!error || error->empty()) return "";
  return "its library " + path + " (library_path in " + manifest.string() +
         ") cannot be loaded: " + *error;
}

std::string exit_hook_library(const std::string& manifest_dir) {
  std::string error;
  const fs::path library = manifest_library(manifest_dir, &error);
  if (!library.has_parent_path()) return {};  // unreadable, or a bare name
  const fs::path hook = library.parent_path() / VKLEAK_EXIT_HOOK_LIBRARY;
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
