#include "base/settings.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <sstream>

#include "base/log.h"
#include "base/safe_file.h"
#include "format/snapshot_format.h"

extern char** environ;

namespace vkleak {
namespace {

constexpr const char* kFilePrefix = "vkleak_tracker.";
constexpr const char* kLayerName = "VK_LAYER_VKLEAK_tracker";

// Every setting the layer knows. VKLEAK_ENABLE / VKLEAK_DISABLE belong to the loader (manifest),
// VKLEAK_LAYER_DIR to the CLI, VKLEAK_BENCH_PASSTHROUGH to the benchmarks (base/passthrough.cpp
// reads it when the layer is loaded): kLoaderKeys, variables that are not settings.
constexpr const char* kSettingKeys[] = {
    "output_dir",           "snapshot_every",   "frame_boundary",
    "callstack_depth",      "snapshot_at_exit", "snapshot_signal",
    "trigger_file",         "log_level",        "log_file",
    "vulkan_stack_modules", "crash_snapshot",   "graveyard_size",
    "destroy_callstacks",   "file_mode",        "memory_budget",
};
constexpr const char* kLoaderKeys[] = {"enable", "disable", "layer_dir", "bench_passthrough"};

std::string to_lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

bool parse_uint(const std::string& v, uint32_t max, uint32_t* out) {
  if (v.empty() || v.size() > 10) return false;
  uint64_t n = 0;
  for (char c : v) {
    if (c < '0' || c > '9') return false;
    n = n * 10 + static_cast<uint64_t>(c - '0');
  }
  if (n > max) return false;
  *out = static_cast<uint32_t>(n);
  return true;
}

bool parse_bool(const std::string& v, bool* out) {
  std::string l = to_lower(v);
  if (l == "1" || l == "true" || l == "on" || l == "yes") return *out = true, true;
  if (l == "0" || l == "false" || l == "off" || l == "no") return *out = false, true;
  return false;
}

bool is_known(const std::string& key) {
  for (const char* k : kSettingKeys)
    if (key == k) return true;
  return false;
}

std::string settings_file_path() {
  const char* p = std::getenv("VK_LAYER_SETTINGS_PATH");
  if (!p || !*p) return "vk_layer_settings.txt";
  struct stat st;
  if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) return std::string(p) + "/vk_layer_settings.txt";
  return p;
}

void apply_or_warn(Settings& s, const std::string& key, const std::string& value,
                   const std::string& source) {
  std::string error;
  if (!apply_setting(s, key, value, &error))
    warn_once("setting:" + source + key + value, shown(source) + ": " + error);
}

// A settings file larger than this is not a settings file (VK_LAYER_SETTINGS_PATH=/dev/zero
// read 2.1 GB before the limit).
constexpr size_t kSettingsFileLimit = 1 << 20;

// VkLayerSettingsCreateInfoEXT (VK_EXT_layer_settings) is newer than the 1.3.239 headers, so its
// layout is declared here. sType 1000496000.
constexpr VkStructureType kLayerSettingsSType = static_cast<VkStructureType>(1000496000);
enum LayerSettingType : int32_t {
  kBool32 = 0,
  kInt32 = 1,
  kInt64 = 2,
  kUint32 = 3,
  kUint64 = 4,
  kFloat32 = 5,
  kFloat64 = 6,
  kString = 7,
};
struct LayerSettingEXT {
  const char* pLayerName;
  const char* pSettingName;
  LayerSettingType type;
  uint32_t valueCount;
  const void* pValues;
};
struct LayerSettingsCreateInfoEXT {
  VkStructureType sType;
  const void* pNext;
  uint32_t settingCount;
  const LayerSettingEXT* pSettings;
};

void apply_api_settings(Settings& s, const VkInstanceCreateInfo* ci) {
  if (!ci) return;
  for (auto* p = static_cast<const VkBaseInStructure*>(ci->pNext); p; p = p->pNext) {
    if (p->sType != kLayerSettingsSType) continue;
    auto* info = reinterpret_cast<const LayerSettingsCreateInfoEXT*>(p);
    for (uint32_t i = 0; i < info->settingCount && info->pSettings; ++i) {
      const LayerSettingEXT& st = info->pSettings[i];
      if (!st.pLayerName || std::strcmp(st.pLayerName, kLayerName) != 0 || !st.pSettingName ||
          st.valueCount == 0 || !st.pValues)
        continue;
      std::string value;
      switch (st.type) {
        case kBool32:
          value = *static_cast<const VkBool32*>(st.pValues) ? "true" : "false";
          break;
        case kInt32:
          value = std::to_string(*static_cast<const int32_t*>(st.pValues));
          break;
        case kUint32:
          value = std::to_string(*static_cast<const uint32_t*>(st.pValues));
          break;
        case kInt64:
          value = std::to_string(*static_cast<const int64_t*>(st.pValues));
          break;
        case kUint64:
          value = std::to_string(*static_cast<const uint64_t*>(st.pValues));
          break;
        case kString: {
          const char* str = *static_cast<const char* const*>(st.pValues);
          value = str ? str : "";
          break;
        }
        default:
          continue;
      }
      apply_or_warn(s, st.pSettingName, value, "VkLayerSettingsCreateInfoEXT");
    }
  }
}

void apply_file_settings(Settings& s) {
  std::string path = settings_file_path();
  std::string text, error;
  if (!read_small_file(path, kSettingsFileLimit, &text, &error)) {
    if (!error.empty())
      warn_once("settings-file:" + path, "settings file '" + shown(path) + "' ignored: " + error);
    return;
  }
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    line = trim(line);
    if (line.empty() || line[0] == '#') continue;
    size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    std::string key = trim(line.substr(0, eq));
    if (key.rfind(kFilePrefix, 0) != 0) continue;  // another layer's setting
    apply_or_warn(s, key.substr(std::strlen(kFilePrefix)), trim(line.substr(eq + 1)), path);
  }
}

// Environment: VK_VKLEAK_TRACKER_<KEY> and the short VKLEAK_<KEY>; the short one wins.
void apply_env_settings(Settings& s) {
  for (const char* prefix : {"VK_VKLEAK_TRACKER_", "VKLEAK_"}) {
    size_t plen = std::strlen(prefix);
    for (char** e = environ; e && *e; ++e) {
      if (std::strncmp(*e, prefix, plen) != 0) continue;
      const char* eq = std::strchr(*e, '=');
      if (!eq) continue;
      const std::string variable(*e, static_cast<size_t>(eq - *e));  // as the user spelled it
      std::string key = to_lower(variable.substr(plen));
      bool loader_key = false;
      for (const char* k : kLoaderKeys) loader_key = loader_key || key == k;
      if (loader_key) continue;
      apply_or_warn(s, key, eq + 1, variable);
    }
  }
}

}  // namespace

const char* to_string(FrameBoundary b) noexcept {
  switch (b) {
    case FrameBoundary::kAuto:
      return "auto";
    case FrameBoundary::kSubmit:
      return "submit";
    case FrameBoundary::kPresent:
      break;
  }
  return "present";
}

bool apply_setting(Settings& s, const std::string& key, const std::string& value,
                   std::string* error) {
  auto bad = [&](const std::string& what) {
    if (error)
      *error = "invalid value '" + shown(value) + "' for setting '" + shown(key) + "': " + what;
    return false;
  };
  if (!is_known(key)) {
    if (error) *error = "unknown setting '" + shown(key) + "' ignored";
    return false;
  }
  if (key == "output_dir") {
    if (value.empty()) return bad("expected a directory");
    s.output_dir = value;
  } else if (key == "snapshot_every") {
    if (!parse_uint(value, 1u << 30, &s.snapshot_every)) return bad("expected frames >= 0");
  } else if (key == "frame_boundary") {
    std::string v = to_lower(value);
    if (v == "auto")
      s.frame_boundary = FrameBoundary::kAuto;
    else if (v == "present")
      s.frame_boundary = FrameBoundary::kPresent;
    else if (v == "submit")
      s.frame_boundary = FrameBoundary::kSubmit;
    else
      return bad("expected auto, present or submit");
  } else if (key == "callstack_depth") {
    if (!parse_uint(value, kMaxCallstackDepth, &s.callstack_depth))
      return bad("expected 0.." + std::to_string(kMaxCallstackDepth));
  } else if (key == "graveyard_size") {
    if (!parse_uint(value, kMaxGraveyardSize, &s.graveyard_size))
      return bad("expected 0.." + std::to_string(kMaxGraveyardSize));
  } else if (key == "destroy_callstacks") {
    if (!parse_bool(value, &s.destroy_callstacks)) return bad("expected true or false");
  } else if (key == "memory_budget") {
    if (!parse_bool(value, &s.memory_budget)) return bad("expected true or false");
  } else if (key == "snapshot_at_exit") {
    if (!parse_bool(value, &s.snapshot_at_exit)) return bad("expected true or false");
  } else if (key == "crash_snapshot") {
    if (!parse_bool(value, &s.crash_snapshot)) return bad("expected true or false");
  } else if (key == "snapshot_signal") {
    std::string v = to_lower(value);
    if (v != "none" && v != "sigusr1" && v != "sigusr2")
      return bad("expected SIGUSR1, SIGUSR2 or none");
    s.snapshot_signal = value;
  } else if (key == "trigger_file") {
    s.trigger_file = value;
  } else if (key == "log_level") {
    std::string v = to_lower(value);
    if (v != "trace" && v != "debug" && v != "info" && v != "warn" && v != "error" && v != "off")
      return bad("expected trace, debug, info, warn, error or off");
    s.log_level = v;
  } else if (key == "log_file") {
    s.log_file = value;
  } else if (key == "vulkan_stack_modules") {
    s.vulkan_stack_modules = value;
  } else if (key == "file_mode") {
    // Octal; read and write for the owner always, execute and write for others never.
    uint32_t mode = 0;
    bool ok = value.size() >= 3 && value.size() <= 4;
    for (char c : value) {
      ok = ok && c >= '0' && c <= '7';
      mode = mode * 8 + static_cast<uint32_t>(c - '0');
    }
    if (!ok || (mode & 0600) != 0600 || (mode & ~0644u) != 0)
      return bad("expected an octal mode from 0600 to 0644 (owner rw, others at most r)");
    s.file_mode = mode;
  }
  return true;
}

Settings load_settings(const VkInstanceCreateInfo* create_info) noexcept {
  Settings s;
  try {
    apply_api_settings(s, create_info);
    apply_file_settings(s);
    apply_env_settings(s);
    if (s.trigger_file.empty()) s.trigger_file = s.output_dir + "/vkleak.trigger";
  } catch (...) {
  }
  return s;
}

std::vector<std::pair<std::string, std::string>> describe(const Settings& s) {
  return {
      {"output_dir", s.output_dir},
      {"snapshot_every", std::to_string(s.snapshot_every)},
      {"frame_boundary", to_string(s.frame_boundary)},
      {"callstack_depth", std::to_string(s.callstack_depth)},
      {"graveyard_size", std::to_string(s.graveyard_size)},
      {"destroy_callstacks", s.destroy_callstacks ? "true" : "false"},
      {"memory_budget", s.memory_budget ? "true" : "false"},
      {"snapshot_at_exit", s.snapshot_at_exit ? "true" : "false"},
      {"snapshot_signal", s.snapshot_signal},
      {"crash_snapshot", s.crash_snapshot ? "true" : "false"},
      {"trigger_file", s.trigger_file},
      {"log_level", s.log_level},
      {"log_file", s.log_file},
      {"vulkan_stack_modules", s.vulkan_stack_modules},
      {"file_mode",
       [&] {
         char buf[8];
         std::snprintf(buf, sizeof(buf), "%04o", s.file_mode);
         return std::string(buf);
       }()},
  };
}

namespace {
struct MadeDirs {
  std::mutex mutex;
  std::vector<std::string> dirs;  // in creation order: parents first
  pid_t pid = 0;                  // a forked child leaves its parent's directories alone
};
MadeDirs& made_dirs() {
  static auto* m = new MadeDirs;  // never destroyed: read at exit
  return *m;
}
}  // namespace

namespace {

// A snapshot writer killed mid-write (SIGKILL, power loss) leaves its ".vkleak-<pid>-....tmp"
// behind. Removed here when that process is gone and the file has not changed for a minute (a
// process of another pid namespace sharing the directory may still be writing a recent one).
void remove_stale_in(DIR* d, int dir_fd, const std::string& dir, time_t now) {
  const std::string prefix(format::kTempPrefix), suffix(format::kTempSuffix);
  while (const dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name.size() <= prefix.size() + suffix.size() || name.compare(0, prefix.size(), prefix) ||
        name.compare(name.size() - suffix.size(), suffix.size(), suffix))
      continue;
    const long pid = std::strtol(name.c_str() + prefix.size(), nullptr, 10);
    if (pid <= 0 || pid == getpid() || kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH)
      continue;
    // Only a regular file of this user's: the layer deletes nothing but its own files.
    struct stat st;
    if (fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
        st.st_uid != geteuid() || now - st.st_mtime < 60)
      continue;
    if (unlinkat(dir_fd, name.c_str(), 0) == 0)
      log().info("removed {}/{}: left by a writer that was killed", shown(dir), shown(name));
  }
}

// Only in a directory open_checked_dir() accepts (else the writer says why at its first snapshot).
void remove_stale_temporaries(const std::string& dir) noexcept {
  std::string error;
  const int fd = open_checked_dir(dir, &error);
  if (fd < 0) return;
  DIR* d = fdopendir(fd);
  if (!d) {
    close(fd);
    return;
  }
  try {
    remove_stale_in(d, dirfd(d), dir, time(nullptr));
  } catch (...) {
  }
  closedir(d);
}

}  // namespace

void prepare_output_dir(const std::string& dir, uint32_t file_mode) noexcept {
  try {
    MadeDirs& m = made_dirs();
    std::lock_guard<std::mutex> lock(m.mutex);
    std::string cur;
    for (size_t i = 0; i <= dir.size(); ++i) {
      if ((i == dir.size() || dir[i] == '/') && !cur.empty()) {
        if (mkdir(cur.c_str(), directory_mode(file_mode)) == 0) {
          m.dirs.push_back(cur);
          m.pid = getpid();
        } else if (errno != EEXIST) {
          return;
        }
      }
      if (i < dir.size()) cur += dir[i];
    }
  } catch (...) {
    return;
  }
  remove_stale_temporaries(dir);
}

void remove_empty_output_dirs() noexcept {
  MadeDirs& m = made_dirs();
  std::lock_guard<std::mutex> lock(m.mutex);
  if (m.pid != getpid()) return;
  for (auto it = m.dirs.rbegin(); it != m.dirs.rend(); ++it)
    rmdir(it->c_str());  // fails, as it should, on a directory with snapshots in it
  m.dirs.clear();
}

}  // namespace vkleak
