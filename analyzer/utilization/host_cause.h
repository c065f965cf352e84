#pragma once
// What a rank's host was doing while its device sat idle: the CPU ranges and calls running then
// (NVTX, the profiler's cpu ops, CUDA API calls), named by what they mean for the job: data
// loading, a synchronize, the optimizer's host side, other host work, or nothing traced.
#include <string>
#include <utility>
#include <vector>

#include "traces/model/trace.h"

namespace bubblescope::analysis {

class HostCauses {
 public:
  // What the host was doing in a gap, as indices: a gap of every few microseconds is asked
  // about, and only the few listed need their words (name()).
  struct Found {
    int cause = 0;  // index of causeName()
    traces::StringId detail = 0;
    bool hasDetail = false;
  };
  static constexpr int kCauseCount = 5;  // synchronize ... host work, then "nothing"
  static const char* causeName(int cause);

  explicit HostCauses(const traces::RankTrace& trace);
  // The cause for the host during [start, end] (the trace's own clock).
  Found at(TimeNs start, TimeNs end) const;
  // (cause, detail) in words.
  std::pair<std::string, std::string> name(const Found& found) const;
  std::pair<std::string, std::string> during(TimeNs start, TimeNs end) const {
    return name(at(start, end));
  }

 private:
  struct Activity {
    TimeNs start, end;
    int kind;  // index into the causes, most specific first
    traces::StringId name;
  };
  const traces::RankTrace& trace_;
  std::vector<Activity> activity_;  // sorted by start
  // The latest end in each block of kBlock activities: a walk back from a gap skips a block that
  // ended before the gap began, where it looked at every activity of its window (4,096 a gap:
  // half the analysis of a 15.7 M-event trace).
  std::vector<TimeNs> blockEnd_;
};

}  // namespace bubblescope::analysis
