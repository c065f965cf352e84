#include "tests/gui/viewer_fixtures.h"

#include <stdexcept>
#include <string>

#include "analyzer/analyze.h"
#include "traces/model/sort.h"

namespace bubblescope::testing {

SyntheticJob viewerJob(bool stall) {
  SyntheticJob job;
  job.schedule = engine::Schedule::oneF1B(4, 8);
  job.steps = 3;
  if (stall) job.stall[{kStallStage, kStallStep, kStallMb, engine::OpKind::F}] = kStall;
  return job;
}

void addKernels(traces::Run& run, int perOp) {
  for (auto& t : run.ranks) {
    const auto compute = t.streamIndex(0, 7);
    const auto comm = t.streamIndex(0, 13);
    const auto gemm = t.strings.intern("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n");
    const auto nccl = t.strings.intern("ncclDevKernel_SendRecv");
    const size_t ranges = t.ranges->size();
    for (size_t i = 0; i < ranges; ++i) {
      const auto name = t.strings.at(t.ranges->name[i]);
      const TimeNs s = t.ranges->start[i], e = t.ranges->end[i];
      if (name.starts_with("SEND")) {
        t.kernels->start.push_back(s);
        t.kernels->end.push_back(e);
        t.kernels->stream.push_back(comm);
        t.kernels->name.push_back(nccl);
        t.kernels->correlation.push_back(0);
        continue;
      }
      const bool op = name.starts_with("F ") || name.starts_with("B ") || name.starts_with("W ") ||
                      name.starts_with("BW ");
      if (!op || perOp <= 0) continue;
      const TimeNs slot = (e - s) / perOp;
      for (int k = 0; k < perOp; ++k) {
        t.kernels->start.push_back(s + k * slot);
        t.kernels->end.push_back(s + (k + 1) * slot - slot / 10);
        t.kernels->stream.push_back(compute);
        t.kernels->name.push_back(gemm);
        t.kernels->correlation.push_back(0);
      }
    }
    traces::sortEvents(t);
  }
}

std::unique_ptr<AnalysedRun> analysedRun(bool stall, int kernelsPerOp) {
  auto r = std::make_unique<AnalysedRun>();
  r->run = synthesize(viewerJob(stall));
  addKernels(r->run, kernelsPerOp);
  r->result = analysis::analyzeRun(r->run);
  r->model = gui::buildTimelineModel(r->run, r->result);
  return r;
}

TimeNs rangeStart(const traces::RankTrace& t, std::string_view name, int step) {
  int seen = 0;
  for (size_t i = 0; i < t.ranges->size(); ++i) {
    if (t.strings.at(t.ranges->name[i]) != name) continue;
    if (seen++ == step) return t.ranges->start[i];
  }
  throw std::logic_error("no range " + std::string(name) + " in step " + std::to_string(step));
}

}  // namespace bubblescope::testing
