#pragma once
// Sorting of the columnar event tables: every column is permuted by one order on a key column.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <type_traits>
#include <vector>

#include "traces/model/trace.h"

namespace bubblescope::traces {

// Sorts [first, last) as std::stable_sort does, in linear time where it is a few ascending runs
// already: an importer adds its events sorted by start, then a few more sorted among themselves
// (an NDTimeline rank's step ranges), and sorting millions of indices read at random was a large
// part of such a rank's import. Adjacent runs are merged pairwise, each merge stable; past
// kMostRuns runs, std::stable_sort.
template <class It, class Less>
void stableSortRuns(It first, It last, Less less) {
  constexpr size_t kMostRuns = 64;
  if (last - first < 2) return;
  std::vector<It> bounds{first};
  for (It it = first + 1; it != last; ++it) {
    if (!less(*it, *(it - 1))) continue;
    if (bounds.size() == kMostRuns) {
      std::stable_sort(first, last, less);
      return;
    }
    bounds.push_back(it);
  }
  bounds.push_back(last);
  while (bounds.size() > 2) {
    std::vector<It> merged{bounds.front()};
    for (size_t i = 0; i + 1 < bounds.size(); i += 2) {
      if (i + 2 < bounds.size()) {
        std::inplace_merge(bounds[i], bounds[i + 1], bounds[i + 2], less);
        merged.push_back(bounds[i + 2]);
      } else {
        merged.push_back(bounds[i + 1]);  // an odd run out: merged in the next round
      }
    }
    bounds.swap(merged);
  }
}

// Stable, so events with equal keys keep their recorded order (a parent range before its child).
template <class Table, class Key>
void sortBy(Table& t, const std::vector<Key>& key) {
  if (std::is_sorted(key.begin(), key.end())) return;
  std::vector<uint32_t> order(key.size());
  std::iota(order.begin(), order.end(), 0u);
  stableSortRuns(order.begin(), order.end(),
                 [&](uint32_t a, uint32_t b) { return key[a] < key[b]; });
  t.forEachColumn([&](auto& column) {
    std::remove_reference_t<decltype(column)> sorted;
    sorted.reserve(column.size());
    for (uint32_t i : order) sorted.push_back(column[i]);
    column.swap(sorted);
  });
}

template <class Table>
void sortByStart(Table& t) {
  sortBy(t, t.start);
}
// A rank's table, if it holds one: an absent table is not made to be sorted.
template <class Table>
void sortByStart(ColumnGroup<Table>& group) {
  if (group.held()) sortByStart(*group);
}

// Sorts every event table of the trace by start (correlations by correlation id).
void sortEvents(RankTrace& trace);

}  // namespace bubblescope::traces
