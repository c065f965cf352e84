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
  explicit HostCauses(const traces::RankTrace& trace);
  // (cause, detail) for the host during [start, end] (the trace's own clock).
  std::pair<std::string, std::string> during(TimeNs start, TimeNs end) const;

 private:
  struct Activity {
    TimeNs start, end;
    int kind;  // index into the causes, most specific first
    traces::StringId name;
  };
  const traces::RankTrace& trace_;
  std::vector<Activity> activity_;  // sorted by start
};

}  // namespace bubblescope::analysis
