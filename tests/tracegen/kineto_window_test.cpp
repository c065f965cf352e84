// Kineto traces whose capture window opened mid-step, as torch.profiler's schedule takes them:
// the first step's NCCL calls were made before the window, so the kernels they launched into it
// have no call and no launch, only the collective's args Kineto copied onto them. Typed by those
// args, they are matched across ranks like any other, and the analysis of the steps after is the
// whole capture's.
#include <gtest/gtest.h>

#include "analyzer/analyze.h"
#include "analyzer/report/figures.h"
#include "tests/support/temp_dir.h"
#include "tests/tracegen/cases.h"
#include "tests/tracegen/execution.h"
#include "tests/tracegen/kineto_stack.h"
#include "traces/import/run_import.h"

namespace bubblescope::tracegen {
namespace {

// When rank r's profiler window opens (true time): as late as it can while every NCCL kernel of
// the rank runs inside it, and before its first batch of several calls (a group's kernel carries
// no args of its own: "coalesced"). The calls posted before it are then the first step's first
// sends and receives, whose kernels run in the window with only their args.
TimeNs windowOpening(const RankTimeline& tl) {
  TimeNs t = INT64_MAX;
  for (const Kernel& k : tl.kernels) {
    if (k.kind == KernelKind::SendRecv || k.kind == KernelKind::AllReduce) t = std::min(t, k.start);
  }
  for (const HostRange& h : tl.ranges) {
    const bool inGroup = h.kind == HostKind::Coalesced ||
                         (h.kind == HostKind::CommCall && tl.calls[h.index].batch >= 0 &&
                          tl.batches[tl.calls[h.index].batch].size() > 1);
    if (inGroup) t = std::min(t, h.start);
  }
  return t - 1;
}

struct Capture {
  analysis::AnalysisResult result;
  std::vector<size_t> callsFromKernels;  // per rank: NCCL calls the import made from kernel args
};

// Writes the job as Kineto does (each rank's window opening at `opening[r]`, none if empty),
// imports it and analyses the steps from 1.
Capture analyseCapture(const JobTimeline& job, const std::vector<TimeNs>& opening) {
  testing::TempDir dir;
  for (int r = 0; r < job.spec.p; ++r) {
    KinetoOptions o;
    o.base = job.spec.start - 2'000'000'000;
    if (!opening.empty()) o.windowStart = opening[r];
    testing::writeFile(dir.path() / ("rank" + std::to_string(r) + ".pt.trace.json"),
                       kinetoRankJson(job, r, o));
  }
  const traces::import::ImportedRun imported =
      traces::import::importRun(traces::import::resolveInputs({dir.path()}));
  Capture out;
  for (const traces::RankTrace& t : imported.run.ranks) {
    // A call made from a kernel's args has no range of its own: no record_param_comms was there.
    size_t n = 0;
    for (size_t c = 0; c < t.ncclCalls->size(); ++c)
      n += t.ncclCalls->start[c] == t.ncclCalls->end[c];
    out.callsFromKernels.push_back(n);
  }
  analysis::AnalyzeOptions a;
  a.firstStep = 1;
  out.result = analysis::analyzeRun(imported.run, a);
  return out;
}

class KinetoWindowCases : public ::testing::TestWithParam<Case> {};

TEST_P(KinetoWindowCases, AWindowOpenedMidStepGivesTheWholeCapturesAnswer) {
  const JobTimeline job = execute(GetParam().spec);
  std::vector<TimeNs> opening;
  for (const RankTimeline& tl : job.ranks) opening.push_back(windowOpening(tl));
  const Capture all = analyseCapture(job, {});
  const Capture cut = analyseCapture(job, opening);
  // Every rank posted calls before its window whose kernels ran inside it.
  for (int r = 0; r < job.spec.p; ++r) {
    EXPECT_GE(cut.callsFromKernels.at(r), 1u) << "rank " << r;
    EXPECT_EQ(all.callsFromKernels.at(r), 0u) << "rank " << r;
  }
  for (const std::string& w : cut.result.warnings) {
    EXPECT_EQ(w.find("tied to no NCCL call"), std::string::npos) << w;
    EXPECT_EQ(w.find("not in the run"), std::string::npos) << w;
  }
  const analysis::PipelineResult& got = cut.result.pipelines.at(0);
  const analysis::PipelineResult& want = all.result.pipelines.at(0);
  ASSERT_EQ(got.stages.size(), want.stages.size());
  ASSERT_EQ(got.steps.size(), want.steps.size());
  for (size_t s = 0; s < got.stages.size(); ++s) {
    const analysis::Split& g = got.stages[s].total;
    const analysis::Split& w = want.stages[s].total;
    for (int k = 0; k < analysis::kIdleClasses; ++k) {
      EXPECT_NEAR(g.idleByClass[k], w.idleByClass[k], 0.01 * w.idle)
          << "stage " << s << " class " << analysis::idleClassName(analysis::idleClassAt(k));
    }
  }
  EXPECT_EQ(analysis::largestAvoidableClass(got.total),
            analysis::largestAvoidableClass(want.total));
  ASSERT_EQ(got.topGaps.empty(), want.topGaps.empty());
  if (!want.topGaps.empty()) {
    const analysis::Gap& gg = got.gaps[got.topGaps.front()];
    const analysis::Gap& gw = want.gaps[want.topGaps.front()];
    EXPECT_EQ(gg.blame.stage, gw.blame.stage) << gg.blame.text << "\nwhole: " << gw.blame.text;
    EXPECT_EQ(gg.blame.cause, gw.blame.cause) << gg.blame.text << "\nwhole: " << gw.blame.text;
  }
}

INSTANTIATE_TEST_SUITE_P(StackAnalysis, KinetoWindowCases, ::testing::ValuesIn(standardCases()),
                         [](const ::testing::TestParamInfo<Case>& i) { return i.param.name; });

}  // namespace
}  // namespace bubblescope::tracegen
