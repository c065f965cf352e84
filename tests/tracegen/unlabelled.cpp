#include "tests/tracegen/unlabelled.h"

#include <vector>

namespace bubblescope::tracegen {

JobTimeline withoutOpLabels(JobTimeline job) {
  for (RankTimeline& r : job.ranks) {
    std::erase_if(r.ranges, [](const HostRange& h) {
      return h.kind == HostKind::PipelineOp || h.kind == HostKind::PipelineComm;
    });
  }
  return job;
}

JobTimeline withoutAnyMarkers(JobTimeline job) {
  for (RankTimeline& r : job.ranks) {
    std::erase_if(r.ranges, [](const HostRange& h) {
      return h.kind == HostKind::PipelineOp || h.kind == HostKind::PipelineComm ||
             h.kind == HostKind::ProfilerStep || h.kind == HostKind::Optimizer;
    });
  }
  return job;
}

}  // namespace bubblescope::tracegen
