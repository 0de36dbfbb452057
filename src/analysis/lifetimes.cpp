#include "analysis/lifetimes.h"

#include <algorithm>
#include <tuple>

#include "analysis/finding.h"
#include "shared/escape.h"

namespace vkleak::analysis {

void LifetimeCollector::close(uint32_t group, uint32_t first, uint32_t last, uint64_t bytes) {
  Sum& sum = cells_[Key{group, first, last}];
  ++sum.count;
  sum.bytes = saturating_add(sum.bytes, bytes);
}

void LifetimeCollector::note_pattern(uint32_t group, uint32_t pattern) {
  std::vector<uint32_t>& seen = patterns_[group];
  if (seen.size() >= kMaxGroupPatterns) return;
  if (std::find(seen.begin(), seen.end(), pattern) == seen.end()) seen.push_back(pattern);
}

const std::vector<uint32_t>* LifetimeCollector::patterns_of(uint32_t group) const {
  auto it = patterns_.find(group);
  return it == patterns_.end() ? nullptr : &it->second;
}

RunLifetimes LifetimeCollector::finish_cells(size_t max_cells,
                                             const std::vector<uint32_t>& keep_groups,
                                             std::vector<uint32_t>* groups_out) {
  RunLifetimes out;
  out.snapshots = std::move(snapshots_);
  const auto end = static_cast<uint32_t>(out.snapshots.empty() ? 0 : out.snapshots.size() - 1);

  struct Cell {
    Key key;
    Sum sum;
  };
  std::vector<Cell> cells;
  cells.reserve(cells_.size());
  for (const auto& [key, sum] : cells_) cells.push_back(Cell{key, sum});
  cells_ = {};
  if (cells.size() > max_cells) {
    // Keep what the explorer is for: the objects alive at the end (leaks), then the most bytes,
    // then the most objects; the rest is counted.
    const auto rank = [end](const Cell& c) {
      return std::make_tuple(c.key.last == end, c.sum.bytes, c.sum.count);
    };
    std::nth_element(cells.begin(), cells.begin() + static_cast<std::ptrdiff_t>(max_cells),
                     cells.end(), [&](const Cell& a, const Cell& b) {
                       const auto ra = rank(a), rb = rank(b);
                       if (ra != rb) return ra > rb;
                       return std::tie(a.key.group, a.key.first, a.key.last) <
                              std::tie(b.key.group, b.key.first, b.key.last);
                     });
    for (size_t i = max_cells; i < cells.size(); ++i) {
      ++out.cells_omitted;
      out.objects_omitted += cells[i].sum.count;
      out.bytes_omitted = saturating_add(out.bytes_omitted, cells[i].sum.bytes);
    }
    cells.resize(max_cells);
  }
  std::sort(cells.begin(), cells.end(), [](const Cell& a, const Cell& b) {
    return std::tie(a.key.group, a.key.first, a.key.last) <
           std::tie(b.key.group, b.key.first, b.key.last);
  });

  // Dense group numbers, in analysis group order: those with cells and those asked for.
  std::vector<uint32_t> wanted;
  wanted.reserve(cells.size() + keep_groups.size());
  for (const Cell& c : cells) {
    if (wanted.empty() || wanted.back() != c.key.group) wanted.push_back(c.key.group);
  }
  wanted.insert(wanted.end(), keep_groups.begin(), keep_groups.end());
  std::sort(wanted.begin(), wanted.end());
  wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
  std::unordered_map<uint32_t, uint32_t> dense;
  for (size_t i = 0; i < wanted.size(); ++i) dense.emplace(wanted[i], static_cast<uint32_t>(i));
  out.cells.reserve(cells.size());
  for (const Cell& c : cells) {
    out.cells.push_back(
        LifetimeCell{dense.at(c.key.group), c.key.first, c.key.last, c.sum.count, c.sum.bytes});
  }
  out.groups.resize(wanted.size());
  *groups_out = std::move(wanted);
  return out;
}

}  // namespace vkleak::analysis
