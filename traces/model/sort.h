#pragma once
// Sorting of the columnar event tables: every column is permuted by one order on a key column.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <type_traits>
#include <vector>

#include "traces/model/trace.h"

namespace bubblescope::traces {

// Stable, so events with equal keys keep their recorded order (a parent range before its child).
template <class Table, class Key>
void sortBy(Table& t, const std::vector<Key>& key) {
  if (std::is_sorted(key.begin(), key.end())) return;
  std::vector<uint32_t> order(key.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
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

// Sorts every event table of the trace by start (correlations by correlation id).
void sortEvents(RankTrace& trace);

}  // namespace bubblescope::traces
