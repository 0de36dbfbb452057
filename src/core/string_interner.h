// Interns strings into a vector, where a string's index is its id, through an open-addressing
// table: no node per string, and the strings end up where the snapshot keeps them. (A snapshot
// may hold hundreds of thousands of distinct debug names; std::unordered_map spent a third of
// the reading time on them.)
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vkleak {

class StringInterner {
 public:
  // strings must outlive the interner; it may already hold strings (they are not indexed).
  explicit StringInterner(std::vector<std::string>* strings) : strings_(strings) { rehash(64); }

  size_t size() const { return count_; }

  void reserve(size_t n) {
    if (n * 2 > slots_.size()) rehash(n * 2);
  }

  // The id of text, added when new; moves from text only when it is added.
  int32_t intern(std::string&& text) { return intern_impl(std::string_view(text), &text); }
  int32_t intern(std::string_view text) { return intern_impl(text, nullptr); }

 private:
  struct Slot {
    uint32_t hash = 0;
    int32_t id = -1;  // -1: empty
  };

  int32_t intern_impl(std::string_view text, std::string* movable) {
    const auto hash = static_cast<uint32_t>(std::hash<std::string_view>()(text));
    size_t mask = slots_.size() - 1;
    size_t i = hash & mask;
    for (;; i = (i + 1) & mask) {
      const Slot& slot = slots_[i];
      if (slot.id < 0) break;
      if (slot.hash == hash && (*strings_)[static_cast<size_t>(slot.id)] == text) return slot.id;
    }
    const auto id = static_cast<int32_t>(strings_->size());
    if (movable != nullptr) {
      strings_->push_back(std::move(*movable));
    } else {
      strings_->emplace_back(text);
    }
    slots_[i] = Slot{hash, id};
    if (++count_ * 2 > slots_.size()) rehash(slots_.size() * 2);
    return id;
  }

  void rehash(size_t want) {
    size_t n = 64;
    while (n < want) n *= 2;
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(n, Slot{});
    for (const Slot& s : old) {
      if (s.id < 0) continue;
      size_t i = s.hash & (n - 1);
      while (slots_[i].id >= 0) i = (i + 1) & (n - 1);
      slots_[i] = s;
    }
  }

  std::vector<std::string>* strings_;
  std::vector<Slot> slots_;
  size_t count_ = 0;
};

}  // namespace vkleak
