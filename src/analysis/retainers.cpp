#include "analysis/retainers.h"

#include <algorithm>
#include <string>

#include "shared/escape.h"

namespace vkleak::analysis {

namespace {

constexpr uint32_t kUnset = UINT32_MAX;
constexpr uint32_t kNone = UINT32_MAX;
constexpr size_t kMaxPathLinks = 8;

// Parents that only scope an object (every object has its device or instance as parent); pools
// and swapchains own theirs.
bool scope_type(const std::string& type) {
  return type == "VkDevice" || type == "VkInstance" || type == "VkPhysicalDevice";
}

}  // namespace

Retainers::Retainers(const SnapshotIndex& index) : index_(index) {
  const size_t n = index.size();
  bound_.assign(n, 0);
  // Children: what each object references, and what a pool or swapchain owns.
  std::vector<std::pair<uint32_t, uint32_t>> links;  // (from, to)
  for (size_t i = 0; i < n; ++i) {
    auto [first, last] = index.edges(i);
    for (const Edge* e = first; e != last; ++e) {
      const size_t to = index.find(e->to);
      if (to == kNotFound || to == i) continue;
      if (index.is_memory_edge(*e) && index.is_memory(to)) bound_[i] = 1;
      links.emplace_back(static_cast<uint32_t>(i), static_cast<uint32_t>(to));
    }
    const size_t parent = index.find(index.object(i).parent);
    if (parent != kNotFound && parent != i && !scope_type(index.type(parent)))
      links.emplace_back(static_cast<uint32_t>(parent), static_cast<uint32_t>(i));
  }
  child_begin_.assign(n + 1, 0);
  std::vector<uint32_t> referrers(n, 0);
  for (const auto& [from, to] : links) {
    ++child_begin_[from + 1];
    ++referrers[to];
  }
  for (size_t i = 0; i < n; ++i) child_begin_[i + 1] += child_begin_[i];
  children_.resize(links.size());
  std::vector<uint32_t> fill(child_begin_.begin(), child_begin_.end() - 1);
  for (const auto& [from, to] : links) children_[fill[from]++] = to;
  links.clear();
  links.shrink_to_fit();

  label_.assign(n, kUnset);
  pred_.assign(n, kNone);
  visit_.assign(n, 0);
  std::vector<uint32_t> queue;
  for (size_t i = 0; i < n; ++i) {
    if (referrers[i] == 0) {
      label_[i] = static_cast<uint32_t>(i);
      queue.push_back(static_cast<uint32_t>(i));
    }
  }
  propagate(&queue);
  // Cycles no root reaches: their first object stands for the root.
  for (size_t i = 0; i < n; ++i) {
    if (label_[i] != kUnset) continue;
    label_[i] = static_cast<uint32_t>(i);
    queue.assign(1, static_cast<uint32_t>(i));
    propagate(&queue);
  }
}

// A label goes unset -> root -> shared, never back: each object is queued at most twice.
void Retainers::propagate(std::vector<uint32_t>* queue) {
  for (size_t head = 0; head < queue->size(); ++head) {
    const uint32_t x = (*queue)[head];
    const uint32_t lx = label_[x];
    for (uint32_t k = child_begin_[x]; k < child_begin_[x + 1]; ++k) {
      const uint32_t c = children_[k];
      const uint32_t lc = label_[c];
      const uint32_t next = lc == kUnset ? lx : lc == lx ? lc : kShared;
      if (next == lc) continue;
      label_[c] = next;
      if (pred_[c] == kNone && next != kShared) pred_[c] = x;
      queue->push_back(c);
    }
  }
  queue->clear();
}

uint64_t Retainers::own_bytes(size_t i) const {
  if (index_.is_memory(i)) return index_.object(i).size;
  return bound_[i] ? 0 : index_.object(i).size;
}

void Retainers::tally_region(const std::vector<uint32_t>& from, uint32_t label, Tally* out) {
  ++epoch_;
  std::vector<uint32_t> queue;
  for (uint32_t i : from) {
    if (visit_[i] == epoch_) continue;
    visit_[i] = epoch_;
    queue.push_back(i);
  }
  for (size_t head = 0; head < queue.size(); ++head) {
    const uint32_t x = queue[head];
    out->bytes = saturating_add(out->bytes, own_bytes(x));
    // A root is not among what it keeps alive; shared objects are.
    if (label == kShared || x != label) ++out->types[index_.object(x).type];
    for (uint32_t k = child_begin_[x]; k < child_begin_[x + 1]; ++k) {
      const uint32_t c = children_[k];
      if (label_[c] != label || visit_[c] == epoch_) continue;
      visit_[c] = epoch_;
      queue.push_back(c);
    }
  }
}

RetainerRoot Retainers::make_root(const Tally& t, uint32_t root) const {
  RetainerRoot r;
  if (root == kShared) {
    r.shared = true;
  } else {
    const Object& o = index_.object(root);
    r.id = o.id;
    r.type = index_.type(root);
    if (const std::string* name = index_.snapshot().name(o)) r.name = *name;
  }
  const auto& type_names = index_.snapshot().type_names;
  for (const auto& [type, count] : t.types) r.counts.push_back({type_names[type], count});
  std::sort(r.counts.begin(), r.counts.end(), [](const TypeTally& a, const TypeTally& b) {
    return a.count != b.count ? a.count > b.count : a.type < b.type;
  });
  r.bytes = t.bytes;
  return r;
}

std::vector<ChainLink> Retainers::path_to(size_t i) const {
  std::vector<uint32_t> up;
  for (uint32_t x = static_cast<uint32_t>(i); x != kNone; x = pred_[x]) up.push_back(x);
  // Long chains: the root and the steps nearest the object.
  if (up.size() > kMaxPathLinks) up.erase(up.begin() + kMaxPathLinks - 1, up.end() - 1);
  std::vector<ChainLink> out;
  for (auto it = up.rbegin(); it != up.rend(); ++it) {
    const Object& o = index_.object(*it);
    ChainLink link;
    link.id = o.id;
    link.type = index_.type(*it);
    if (const std::string* name = index_.snapshot().name(o)) link.name = *name;
    link.state = ChainState::kLive;
    out.push_back(std::move(link));
  }
  return out;
}

std::vector<RetainerRoot> Retainers::of(const std::vector<size_t>& objects, size_t max_roots,
                                        uint64_t* omitted) {
  struct Members {
    uint64_t count = 0;
    size_t first = kNotFound;
  };
  std::unordered_map<uint32_t, Members> by_root;
  std::vector<uint32_t> shared;
  for (size_t i : objects) {
    const uint32_t l = label_[i];
    if (l == i) continue;  // nothing references it
    Members& m = by_root[l];
    ++m.count;
    if (m.first == kNotFound || i < m.first) m.first = i;
    if (l == kShared) shared.push_back(static_cast<uint32_t>(i));
  }
  std::vector<RetainerRoot> out;
  for (const auto& [root, members] : by_root) {
    RetainerRoot r;
    if (root == kShared) {
      Tally t;
      tally_region(shared, kShared, &t);
      r = make_root(t, kShared);
    } else {
      auto it = roots_.find(root);
      if (it == roots_.end()) {
        Tally t;
        tally_region({root}, root, &t);
        it = roots_.emplace(root, std::move(t)).first;
      }
      r = make_root(it->second, root);
      r.path = path_to(members.first);
    }
    r.objects = members.count;
    out.push_back(std::move(r));
  }
  std::sort(out.begin(), out.end(), [](const RetainerRoot& a, const RetainerRoot& b) {
    if (a.bytes != b.bytes) return a.bytes > b.bytes;
    if (a.objects != b.objects) return a.objects > b.objects;
    return a.shared != b.shared ? b.shared : a.id < b.id;
  });
  *omitted = out.size() > max_roots ? out.size() - max_roots : 0;
  if (out.size() > max_roots) out.resize(max_roots);
  return out;
}

std::vector<RetainerRoot> Retainers::of_group(uint32_t group, size_t max_roots, uint64_t* omitted) {
  if (!groups_built_) {
    for (size_t i = 0; i < index_.size(); ++i)
      groups_[index_.group(i)].push_back(static_cast<uint32_t>(i));
    groups_built_ = true;
  }
  *omitted = 0;
  auto it = groups_.find(group);
  if (it == groups_.end()) return {};
  return of(std::vector<size_t>(it->second.begin(), it->second.end()), max_roots, omitted);
}

}  // namespace vkleak::analysis
