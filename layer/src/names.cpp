#include "names.h"

#include <mutex>
#include <unordered_map>

namespace vkleak {
namespace {
struct NameTable {
  std::mutex mutex;
  std::vector<std::string> names{std::string()};
  std::unordered_map<std::string, uint32_t> ids;
};
NameTable& table() {
  static auto* t = new NameTable;
  return *t;
}
// Snapshots are JSON: keep names valid UTF-8 by replacing stray bytes with '?'.
std::string sanitize_utf8(const char* s) {
  std::string out;
  const auto* p = reinterpret_cast<const unsigned char*>(s);
  while (*p) {
    int len = *p < 0x80 ? 1 : (*p >> 5) == 6 ? 2 : (*p >> 4) == 14 ? 3 : (*p >> 3) == 30 ? 4 : 0;
    bool valid = len > 0;
    for (int i = 1; valid && i < len; ++i) valid = (p[i] & 0xc0) == 0x80;
    if (!valid) {
      out += '?';
      ++p;
      continue;
    }
    out.append(reinterpret_cast<const char*>(p), static_cast<size_t>(len));
    p += len;
  }
  return out;
}
}  // namespace

uint32_t intern_name(const char* name) noexcept {
  if (!name || !*name) return 0;
  try {
    NameTable& t = table();
    std::lock_guard<std::mutex> lock(t.mutex);
    std::string clean = sanitize_utf8(name);
    auto [it, inserted] = t.ids.emplace(clean, static_cast<uint32_t>(t.names.size()));
    if (inserted) t.names.push_back(std::move(clean));
    return it->second;
  } catch (...) {
    return 0;
  }
}

void copy_names(std::vector<std::string>* out) {
  NameTable& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  *out = t.names;
}

}  // namespace vkleak
