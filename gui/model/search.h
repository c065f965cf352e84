#pragma once
// The search box: every op, kernel, copy, NCCL call, CUDA API call and NVTX range of a pipeline
// whose name contains the query (case-insensitive), kept per lane as sorted positions so a box
// knows in one binary search whether it holds a match, and "next"/"previous" find the nearest.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gui/model/timeline_model.h"

namespace bubblescope::gui {

struct SearchMatch {
  uint32_t lane = 0;  // lane id (laneRef)
  uint32_t pos = 0;   // position in the lane
  TimeNs start = 0, end = 0;
};

struct SearchResult {
  std::string query;
  std::vector<std::vector<uint32_t>> matches;  // by lane id: positions, ascending
  size_t total = 0;

  // Whether positions [first, last) of the lane hold a match.
  bool hit(uint32_t lane, size_t first, size_t last) const;
  // The match starting first after `t` (strictly), or last before it; none when there is none.
  std::optional<SearchMatch> next(const PipelineRows& p, TimeNs t) const;
  std::optional<SearchMatch> previous(const PipelineRows& p, TimeNs t) const;
};

// Ghost rows and gaps are not searched (their names repeat the ops').
SearchResult search(const TimelineModel& model, const PipelineRows& p, std::string_view query);

// Case-insensitive (ASCII) substring test.
bool containsNoCase(std::string_view text, std::string_view lowerQuery);

}  // namespace bubblescope::gui
