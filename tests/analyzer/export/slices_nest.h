#pragma once
// What the Perfetto UI's JSON importer needs of an exported trace's slices, checked in a test.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

namespace bubblescope::testing {

// The JSON importers drop slices that overlap on one thread without nesting: every slice of a
// thread lies inside the one open at its start, or after it.
inline void expectSlicesOfOneThreadNest(const nlohmann::json& doc) {
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> threads;
  for (const nlohmann::json& ev : doc["traceEvents"]) {
    if (ev["ph"] != "X") continue;
    const double ts = ev["ts"], dur = ev["dur"];
    threads[{ev["pid"], ev["tid"]}].push_back({ts, ts + dur});
  }
  for (auto& [thread, slices] : threads) {
    std::sort(slices.begin(), slices.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first < b.first : a.second > b.second;
    });
    std::vector<double> open;  // ends of the slices enclosing the current one
    for (const auto& [start, end] : slices) {
      while (!open.empty() && open.back() <= start + 1e-6) open.pop_back();
      if (!open.empty()) {
        EXPECT_LE(end, open.back() + 1e-6)
            << "pid " << thread.first << " tid " << thread.second << " at " << start;
      }
      open.push_back(end);
    }
  }
}

}  // namespace bubblescope::testing
