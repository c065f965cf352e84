// The inference on a CPU job: traces that hold NCCL host calls and nothing else (no kernel, no
// range), as a gloo-like pipeline leaves them. Each rank's ops are its host time between calls;
// the steps come from its all-reduces, else from the microbatch count that repeats.
#include <gtest/gtest.h>

#include <map>

#include "analyzer/infer/infer_pipeline.h"
#include "reference_engine/sim/simulate.h"

namespace bubblescope::analysis {
namespace {

using engine::OpKind;
using traces::NcclOp;

constexpr int kP = 3, kM = 4, kSteps = 2;
constexpr TimeNs kF = 2'000'000, kBW = 4'000'000, kTail = 1'000'000;
constexpr uint64_t kComm = 0x5eed;

void addCall(traces::RankTrace& t, NcclOp op, TimeNs start, TimeNs end, int peer) {
  auto& c = *t.ncclCalls;
  c.start.push_back(start);
  c.end.push_back(end);
  c.thread.push_back(t.threadIndex(1000 + static_cast<uint64_t>(t.meta.rank)));
  c.op.push_back(op);
  c.peer.push_back(peer);
  c.count.push_back(1024);
  c.dtype.push_back(7);
  c.bytes.push_back(4096);
  c.comm.push_back(kComm);
  c.commRank.push_back(t.meta.rank);
  c.commSize.push_back(kP);
  c.streamHandle.push_back(0);
  c.groupDepth.push_back(0);
  c.seq.push_back(0);
  c.id.push_back(c.start.size());
  c.source.push_back(traces::NcclSource::Nvtx);
}

// A 1F1B pipeline run as the simulator times it, step after step, once every stage has set up
// its communicator (and tears it down after): each stage posts a receive
// when it starts waiting for an op's input (it ends as the op starts) and a send as the op ends.
// `allReduce`: every stage all-reduces after its last op until the step ends.
struct CpuJob {
  traces::Run run;
  std::vector<std::vector<std::pair<TimeNs, TimeNs>>> ops;  // per stage, in time order
};

CpuJob cpuJob(bool allReduce) {
  const engine::Schedule schedule = engine::Schedule::oneF1B(kP, kM);
  engine::SimCosts costs;
  costs.perKind = {kF, 0, 0, kBW};
  const engine::SimResult sim = engine::simulate(schedule, costs);
  CpuJob job;
  job.run.ranks.resize(kP);
  job.ops.resize(kP);
  const TimeNs start = 1'000'000'000;
  for (int s = 0; s < kP; ++s) {
    job.run.ranks[s].meta.rank = s;
    // Every job sets up its communicator first: what stage 0's first forward follows.
    addCall(job.run.ranks[s], NcclOp::CommInitRank, start - kTail, start, -1);
  }
  for (int step = 0; step < kSteps; ++step) {
    // Without an all-reduce nothing separates the steps: the next starts as this one ends.
    const TimeNs base = start + step * (sim.makespan + (allReduce ? kTail : 0));
    for (int s = 0; s < kP; ++s) {
      traces::RankTrace& t = job.run.ranks[s];
      TimeNs cursor = base;
      for (size_t i = 0; i < schedule.stages[s].size(); ++i) {
        const bool forward = schedule.stages[s][i].kind == OpKind::F;
        const engine::OpTiming& o = sim.stages[s].ops[i];
        const int from = forward ? s - 1 : s + 1, to = forward ? s + 1 : s - 1;
        if (from >= 0 && from < kP) addCall(t, NcclOp::Recv, cursor, base + o.start, from);
        job.ops[s].emplace_back(base + o.start, base + o.end);
        if (to >= 0 && to < kP) addCall(t, NcclOp::Send, base + o.end, base + o.end, to);
        cursor = base + o.end;
      }
      if (allReduce) addCall(t, NcclOp::AllReduce, cursor, base + sim.makespan + kTail, -1);
      // And tears it down at the end: what the last op is followed by.
      if (!allReduce && step + 1 == kSteps) addCall(t, NcclOp::CommDestroy, cursor, cursor, -1);
    }
  }
  return job;
}

void expectTheJobsOps(bool allReduce) {
  CpuJob job = cpuJob(allReduce);
  std::vector<RankOps> ops(kP);
  const P2pInference inferred = inferFromP2p(job.run, ops);
  ASSERT_TRUE(inferred.found) << (inferred.notes.empty() ? "" : inferred.notes[0]);
  EXPECT_EQ(inferred.hostStages, kP);
  EXPECT_EQ(inferred.pipelines, 1);
  for (int s = 0; s < kP; ++s) {
    const RankOps& r = ops[s];
    EXPECT_EQ(r.stageFromLabels, s);
    EXPECT_FALSE(r.hasKernels);
    ASSERT_EQ(r.steps.size(), static_cast<size_t>(kSteps)) << "stage " << s;
    ASSERT_EQ(r.ops.size(), job.ops[s].size()) << "stage " << s;
    std::map<std::pair<int, OpKind>, int> perStep;
    for (size_t i = 0; i < r.ops.size(); ++i) {
      const RecognizedOp& o = r.ops[i];
      ++perStep[{o.step, o.op.kind}];
      // The host time between the calls is the op, to the nanosecond: the last stage's forward
      // and backward, which no call parts, split in the proportions its neighbour shows.
      EXPECT_EQ(o.start, job.ops[s][i].first) << "stage " << s << " op " << i;
      EXPECT_EQ(o.end, job.ops[s][i].second) << "stage " << s << " op " << i;
      EXPECT_EQ(r.kernelsOf(i).firstLaunch, kNoLaunch);
    }
    for (int step = 0; step < kSteps; ++step) {
      EXPECT_EQ((perStep[{step, OpKind::F}]), kM) << "stage " << s << " step " << step;
      EXPECT_EQ((perStep[{step, OpKind::BW}]), kM) << "stage " << s << " step " << step;
    }
    // Its sends and receives are the calls, each given its pass, peer and microbatch.
    EXPECT_EQ(r.comms.size(), static_cast<size_t>(kSteps * kM * (s == 0 || s == kP - 1 ? 2 : 4)));
    for (const RecognizedComm& c : r.comms) {
      EXPECT_GE(c.mb, 0);
      EXPECT_LT(c.mb, kM);
      EXPECT_EQ(c.peer, (c.pass == OpKind::F) == c.send ? s + 1 : s - 1);
    }
    EXPECT_EQ(r.gradSync.size(), allReduce ? static_cast<size_t>(kSteps) : 0u);
  }
}

TEST(HostInference, ACpuJobsOpsAreItsHostTimeBetweenCallsStepsFromItsAllReduces) {
  expectTheJobsOps(true);
}

TEST(HostInference, WithoutCollectivesTheRepeatingMicrobatchCountCutsTheSteps) {
  expectTheJobsOps(false);
}

// No calls at all: nothing to read a pipeline off.
TEST(HostInference, NoTrafficNoPipeline) {
  traces::Run run;
  run.ranks.resize(2);
  std::vector<RankOps> ops(2);
  EXPECT_FALSE(inferFromP2p(run, ops).found);
}

}  // namespace
}  // namespace bubblescope::analysis
