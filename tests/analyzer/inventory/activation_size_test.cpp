// A microbatch's activation bytes per stage, read off live-tensor samples: the most held during
// the stage's ops above the least in the step, over the microbatches the measured order holds;
// each what-if row's bytes from it; and why not, when the trace cannot tell.
#include "analyzer/inventory/activation_size.h"

#include <gtest/gtest.h>

#include "analyzer/analyze.h"
#include "tests/analyzer/synthetic_run.h"

namespace bubblescope::analysis {
namespace {

constexpr int64_t kMiB = int64_t{1} << 20;

// Two stages, one step [0, 100]; stage 0 runs ops over [10, 60], stage 1 over [20, 50]. The
// measured order holds 2 microbatches on stage 0 and 1 on stage 1; a what-if row holds 4 and 3.
struct TwoStages {
  traces::Run run;
  PipelineTrace trace;
  PipelineResult result;

  TwoStages() {
    run.ranks.resize(2);
    trace.p = 2;
    for (int s = 0; s < 2; ++s) {
      StageTrace st;
      st.stage = s;
      st.ranks = {static_cast<size_t>(s)};
      trace.stages.push_back(st);
    }
    result.steps = {{0, 0, 100}};
    result.ops = {{{OpKind::F, 0, 0}, 0, 0, 10, 20},
                  {{OpKind::BW, 0, 0}, 0, 0, 50, 60},
                  {{OpKind::F, 0, 0}, 1, 0, 20, 30},
                  {{OpKind::BW, 0, 0}, 1, 0, 40, 50}};
    WhatIf measured;
    measured.scenario = "measured";
    measured.activations = {2, 1};
    WhatIf other;
    other.scenario = "other";
    other.activations = {4, 3};
    result.whatIf = {measured, other};
  }

  void sample(int rank, TimeNs at, int64_t allocated, int64_t reserved = traces::kBytesUnknown) {
    traces::MemoryUsage& m = run.ranks[rank].memory;
    m.start.push_back(at);
    m.device.push_back(0);
    m.allocated.push_back(allocated);
    m.reserved.push_back(reserved);
  }
};

TEST(ActivationSize, PeakDuringTheOpsAboveTheStepsLeastOverTheMicrobatchesHeld) {
  TwoStages t;
  // Stage 0: 1 GiB of weights, +300 MiB at 10 and at 15, freed at 45 and 60; the optimizer's
  // 500 MiB of temporaries at 80, after the ops, is not the activations'.
  t.sample(0, 0, 1024 * kMiB);
  t.sample(0, 10, 1324 * kMiB);
  t.sample(0, 15, 1624 * kMiB);
  t.sample(0, 45, 1324 * kMiB);
  t.sample(0, 60, 1024 * kMiB);
  t.sample(0, 80, 1524 * kMiB);
  t.sample(0, 90, 1024 * kMiB);
  // Stage 1: 200 MiB for its one microbatch.
  t.sample(1, 0, 512 * kMiB);
  t.sample(1, 20, 712 * kMiB);
  t.sample(1, 50, 512 * kMiB);
  attachActivationSize(t.run, t.trace, t.result);
  EXPECT_EQ(t.result.activationSize.unknown, "");
  EXPECT_EQ(t.result.activationSize.perMicrobatch, (std::vector<int64_t>{300 * kMiB, 200 * kMiB}));
  EXPECT_EQ(t.result.whatIf[0].activationBytes, (std::vector<int64_t>{600 * kMiB, 200 * kMiB}));
  EXPECT_EQ(t.result.whatIf[1].activationBytes, (std::vector<int64_t>{1200 * kMiB, 600 * kMiB}));
}

TEST(ActivationSize, UnknownWithoutMemoryRecordsOrWithOnlyTheReserve) {
  TwoStages none;
  attachActivationSize(none.run, none.trace, none.result);
  EXPECT_EQ(none.result.activationSize.unknown, "no memory records");
  EXPECT_TRUE(none.result.activationSize.perMicrobatch.empty());
  EXPECT_TRUE(none.result.whatIf[0].activationBytes.empty());

  // CUDA-level recorders see cudaMalloc and cudaFree: the caching allocator's reserve.
  TwoStages reserve;
  for (int r = 0; r < 2; ++r) {
    reserve.sample(r, 0, traces::kBytesUnknown, 2048 * kMiB);
    reserve.sample(r, 15, traces::kBytesUnknown, 4096 * kMiB);
  }
  attachActivationSize(reserve.run, reserve.trace, reserve.result);
  EXPECT_EQ(reserve.result.activationSize.unknown,
            "the trace records the allocator's reserve, not the bytes in live tensors");
  EXPECT_TRUE(reserve.result.whatIf[1].activationBytes.empty());

  TwoStages flat;
  for (int r = 0; r < 2; ++r) flat.sample(r, 0, 1024 * kMiB);
  attachActivationSize(flat.run, flat.trace, flat.result);
  EXPECT_EQ(flat.result.activationSize.unknown,
            "the live-tensor samples of stage 0 rise by nothing while it runs its ops");
}

TEST(ActivationSize, ASyntheticJobsActivationsAreFoundAgainAndScaleEachWhatIf) {
  testing::SyntheticJob job;
  job.schedule = engine::Schedule::oneF1B(4, 8);
  job.activationBytes = 96 * kMiB;
  job.weightBytes = 4096 * kMiB;
  const AnalysisResult r = analyzeRun(testing::synthesize(job), {});
  const PipelineResult& pl = r.pipelines.at(0);
  ASSERT_EQ(pl.activationSize.unknown, "");
  EXPECT_EQ(pl.activationSize.perMicrobatch, std::vector<int64_t>(4, 96 * kMiB));
  for (const WhatIf& w : pl.whatIf) {
    if (!w.available) continue;
    ASSERT_EQ(w.activationBytes.size(), 4u) << w.scenario;
    for (size_t s = 0; s < 4; ++s) {
      EXPECT_EQ(w.activationBytes[s], static_cast<int64_t>(w.activations[s] * 96 * kMiB))
          << w.scenario << " stage " << s;
    }
  }
  EXPECT_EQ(pl.whatIf[0].activationBytes,
            (std::vector<int64_t>{384 * kMiB, 288 * kMiB, 192 * kMiB, 96 * kMiB}));
}

}  // namespace
}  // namespace bubblescope::analysis
