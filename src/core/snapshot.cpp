#include "core/snapshot.h"

#include <algorithm>
#include <type_traits>
#include <utility>

namespace vkleak {

namespace {

// Side tables are sorted by object index (the parser appends them in file order).
template <typename T>
std::pair<const T*, const T*> entries_of(const std::vector<T>& table, size_t index) {
  auto range =
      std::equal_range(table.begin(), table.end(), index, [](const auto& a, const auto& b) {
        if constexpr (std::is_same_v<std::decay_t<decltype(a)>, T>) {
          return a.object < b;
        } else {
          return a < b.object;
        }
      });
  return {table.data() + (range.first - table.begin()),
          table.data() + (range.second - table.begin())};
}

}  // namespace

const LastUse* last_use_of(const Snapshot& snapshot, size_t index) {
  auto [first, last] = entries_of(snapshot.last_uses, index);
  return first == last ? nullptr : first;
}

const MemoryBinding* memory_of(const Snapshot& snapshot, size_t index) {
  auto [first, last] = entries_of(snapshot.memory_bindings, index);
  return first == last ? nullptr : first;
}

std::pair<const Edge*, const Edge*> edges_of(const Snapshot& snapshot, size_t index) {
  auto range = std::equal_range(snapshot.edges.begin(), snapshot.edges.end(), index,
                                [](const auto& a, const auto& b) {
                                  if constexpr (std::is_same_v<std::decay_t<decltype(a)>, Edge>) {
                                    return a.from < b;
                                  } else {
                                    return a < b.from;
                                  }
                                });
  return {snapshot.edges.data() + (range.first - snapshot.edges.begin()),
          snapshot.edges.data() + (range.second - snapshot.edges.begin())};
}

namespace {

std::string compose(const std::string& path, const std::string& message,
                    const std::optional<uint64_t>& offset) {
  std::string text = path.empty() ? message : path + ": " + message;
  if (offset) text += " (at byte " + std::to_string(*offset) + ")";
  return text;
}

}  // namespace

SnapshotError::SnapshotError(std::string path, const std::string& message,
                             std::optional<uint64_t> offset)
    : std::runtime_error(compose(path, message, offset)), path_(std::move(path)), offset_(offset) {}

}  // namespace vkleak
