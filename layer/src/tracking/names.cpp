#include "tracking/names.h"

#include <mutex>
#include <unordered_map>

namespace vkleak {
namespace {

struct NameTable {
  std::mutex mutex;
  struct Entry {
    const std::string* name = nullptr;  // the key in `ids` (nodes are stable); null: free
    uint32_t refs = 0;
  };
  std::vector<Entry> entries{Entry{}};  // index 0: "no name"
  std::unordered_map<std::string, uint32_t> ids;
  std::vector<uint32_t> free_ids;
  std::vector<uint32_t> unreferenced;  // refs dropped to 0 while pinned
  uint32_t pins = 0;

  void free_id(uint32_t id) noexcept {
    Entry& e = entries[id];
    ids.erase(*e.name);
    e.name = nullptr;
    try {
      free_ids.push_back(id);
    } catch (...) {  // the slot stays unused
    }
  }
  void drop(uint32_t id) noexcept {
    if (id == 0 || id >= entries.size() || !entries[id].name || entries[id].refs == 0) return;
    if (--entries[id].refs != 0) return;
    if (pins == 0) {
      free_id(id);
      return;
    }
    try {
      unreferenced.push_back(id);
    } catch (...) {
      free_id(id);  // rather than leak it: a snapshot in progress may miss this name
    }
  }
};

NameTable& table() {
  static auto* t = new NameTable;  // never destroyed: hooks may run while the process exits
  return *t;
}

}  // namespace

uint32_t intern_name(const char* name) noexcept {
  if (!name || !*name) return 0;
  try {
    NameTable& t = table();
    std::lock_guard<std::mutex> lock(t.mutex);
    auto [it, inserted] = t.ids.emplace(name, 0);
    if (!inserted) {
      t.entries[it->second].refs++;
      return it->second;
    }
    uint32_t id;
    try {
      if (!t.free_ids.empty()) {
        id = t.free_ids.back();
        t.free_ids.pop_back();
      } else {
        id = static_cast<uint32_t>(t.entries.size());
        t.entries.emplace_back();
      }
    } catch (...) {
      t.ids.erase(it);
      return 0;
    }
    it->second = id;
    t.entries[id] = {&it->first, 1};
    return id;
  } catch (...) {
    return 0;
  }
}

void retain_name(uint32_t id) noexcept {
  if (id == 0) return;
  NameTable& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  if (id < t.entries.size() && t.entries[id].name) t.entries[id].refs++;
}

void release_name(uint32_t id) noexcept {
  if (id == 0) return;
  NameTable& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  t.drop(id);
}

std::string name_string(uint32_t id) {
  if (id == 0) return std::string();
  NameTable& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  return id < t.entries.size() && t.entries[id].name ? *t.entries[id].name : std::string();
}

void copy_names(std::vector<std::string>* out) {
  NameTable& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  out->assign(t.entries.size(), std::string());
  for (size_t i = 1; i < t.entries.size(); ++i)
    if (t.entries[i].name) (*out)[i] = *t.entries[i].name;
}

NamePin::NamePin() noexcept {
  NameTable& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  t.pins++;
}

NamePin::~NamePin() {
  NameTable& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  if (--t.pins != 0) return;
  for (uint32_t id : t.unreferenced)
    if (t.entries[id].name && t.entries[id].refs == 0) t.free_id(id);  // not named again since
  std::vector<uint32_t>().swap(t.unreferenced);
}

size_t live_name_count() noexcept {
  NameTable& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  return t.ids.size();
}

size_t name_slot_count() noexcept {
  NameTable& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  return t.entries.size() - 1;
}

}  // namespace vkleak
