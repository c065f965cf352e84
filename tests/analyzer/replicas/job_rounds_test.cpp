// The job's analysis in rounds (analyze under MPI): replicas dealt at random to "processes", each
// sending only its replicas' summaries as bytes (arrivals, step times and op cost sums, replays at
// the job's ideal, sequence-length findings), give the job section analyzeJob gives in one
// process, field for field; damaged bytes throw, never crash.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "analyzer/owned_rounds_codec.h"
#include "analyzer/pipeline/pipeline_trace.h"
#include "analyzer/recognize/recognizer.h"
#include "analyzer/recognize/rule_set.h"
#include "analyzer/replicas/dp_waits.h"
#include "analyzer/replicas/job_analysis.h"
#include "analyzer/replicas/job_rounds_codec.h"
#include "analyzer/replicas/sequence_imbalance.h"
#include "tests/analyzer/hand_pipeline.h"
#include "tests/analyzer/synthetic_run.h"

namespace bubblescope::analysis {
namespace {

using testing::SyntheticJob;

// What one replica is made to do: slower ops everywhere or on one stage, a microbatch of long
// sequences, a stall before one op, an extra step.
struct ReplicaFault {
  double everyOp = 1.0;
  int slowStage = -1;
  double stageFactor = 1.0;
  int longMb = -1;
  double mbFactor = 1.0;
  bool stall = false;
  int stallStage = 0, stallStep = 0, stallMb = 0;
  int extraSteps = 0;
};

PipelineTrace replicaPipeline(int p, int m, int steps, int dp, const ReplicaFault& f) {
  SyntheticJob job;
  job.schedule = engine::Schedule::oneF1B(p, m);
  job.steps = steps + f.extraSteps;
  job.cost = [f](int stage, int, const engine::Op& op) {
    double c = op.kind == engine::OpKind::BW ? 4e6 : 2e6;
    c *= f.everyOp;
    if (stage == f.slowStage) c *= f.stageFactor;
    if (op.mb == f.longMb) c *= f.mbFactor;
    return static_cast<TimeNs>(c);
  };
  if (f.stall) job.stall[{f.stallStage, f.stallStep, f.stallMb, engine::OpKind::F}] = 3'000'000;
  const traces::Run run = testing::synthesize(job);
  std::vector<const RuleSet*> sets;
  for (const RuleSet& s : builtinRuleSets()) sets.push_back(&s);
  std::vector<RankOps> ops;
  for (const traces::RankTrace& t : run.ranks) ops.push_back(recognize(t, sets));
  PipelineTrace pl =
      buildPipeline(testing::chainTopology(p), 0, ops, testing::HandPipeline::noClockAlignment());
  pl.dpRank = dp;
  return pl;
}

// Every field of the job section the rounds fill, as text: equal texts, equal sections.
std::string describe(const JobResult& j) {
  std::string out;
  char buf[256];
  auto line = [&](const char* fmt, auto... args) {
    std::snprintf(buf, sizeof buf, fmt, args...);
    out += buf;
    out += '\n';
  };
  line("present %d steps %d measured %lld ideal %lld ops %lld tail %lld transfer %lld S %.17g",
       j.present, j.steps, static_cast<long long>(j.stepTimeMeasured),
       static_cast<long long>(j.stepTimeIdeal), static_cast<long long>(j.stepTimeOps),
       static_cast<long long>(j.tail), static_cast<long long>(j.transfer), j.slowdown);
  line("model %lld %lld %d", static_cast<long long>(j.model.measured),
       static_cast<long long>(j.model.replayed), j.model.reproduces);
  out += "largest " + j.model.largest + "\n";
  for (const auto* table : {&j.stages, &j.dpRanks, &j.opTypes}) {
    for (const PartSlowdown& part : *table) {
      line("part %d %.17g %lld", part.id, part.slowdown, static_cast<long long>(part.stepTime));
      out += part.name + "\n";
    }
  }
  out += "culprit " + j.culprit + "\n";
  line("gain %lld dp %d stage %d wait %lld", static_cast<long long>(j.culpritGain), j.culpritDp,
       j.culpritStage, static_cast<long long>(j.dpWaitPerStep));
  for (const DpSyncBlame& b : j.dpSync) {
    line("sync %d %d %lld %d", b.dp, b.stage, static_cast<long long>(b.waitCaused), b.stepsLast);
  }
  for (const SequenceImbalance& s : j.sequenceImbalance) {
    line("sequence %d %.17g %.17g %d %.17g", s.dp, s.correlation, s.spread, s.longestMb,
         s.longestFactor);
    out += s.text + "\n";
  }
  for (const std::string& n : j.notes) out += "note " + n + "\n";
  return out;
}

// The rounds with the replicas dealt to processes by `processOf`; every message goes through
// bytes, and the process that analyses the job (process 0) reads only those.
JobResult inRounds(const std::vector<PipelineTrace>& pipelines, const std::vector<int>& processOf,
                   int processes) {
  const size_t n = pipelines.size();
  std::vector<ReplicaSteps> replicas;
  for (const PipelineTrace& pl : pipelines) replicas.push_back({&pl, buildStepViews(pl)});

  // Round one: each process's replicas' arrivals, step times, cost sums and findings.
  std::vector<std::string> sent(processes);
  for (size_t d = 0; d < n; ++d) {
    traces::ByteWriter w(sent[processOf[d]]);
    w.value<uint32_t>(static_cast<uint32_t>(d));
    encodeArrivals(arrivalsOf(pipelines[d]), w);
    encodeReplicaCosts(replicaCostsOf(replicas[d]), w);
    encodeSequenceImbalance(sequenceImbalanceOf(replicas[d]), w);
  }
  std::vector<ReplicaArrivals> arrivals(n);
  std::vector<ReplicaCosts> costs(n);
  std::vector<std::optional<SequenceImbalance>> found(n);
  for (const std::string& bytes : sent) {
    traces::ByteReader r(bytes);
    while (!r.done()) {
      const auto d = r.value<uint32_t>();
      arrivals[d] = decodeArrivals(r);
      costs[d] = decodeReplicaCosts(r);
      found[d] = decodeSequenceImbalance(r);
    }
  }
  const std::vector<DpWaits> waits = dpWaitsFrom(arrivals);

  // The ideal goes to every process; round two: their replicas replayed at it.
  std::string idealBytes;
  {
    traces::ByteWriter w(idealBytes);
    JobIdealSums sums;
    for (ReplicaCosts& c : costs) sums.add(c);  // as each replica's arrive
    encodeJobIdeal(sums.finish(), w);
  }
  std::vector<std::string> replayed(processes);
  for (int q = 0; q < processes; ++q) {
    traces::ByteReader r(idealBytes);
    const JobIdeal ideal = decodeJobIdeal(r);
    for (size_t d = 0; d < n; ++d) {
      if (processOf[d] != q) continue;
      traces::ByteWriter w(replayed[q]);
      w.value<uint32_t>(static_cast<uint32_t>(d));
      encodeReplay(replayReplica(replicas[d], ideal), w);
    }
  }
  std::vector<ReplicaReplay> replays(n);
  for (const std::string& bytes : replayed) {
    traces::ByteReader r(bytes);
    while (!r.done()) {
      const auto d = r.value<uint32_t>();
      replays[d] = decodeReplay(r);
    }
  }
  traces::ByteReader r(idealBytes);
  JobResult job;
  analyzeJobFrom(costs, decodeJobIdeal(r), replays, waits, std::move(found), job);
  return job;
}

JobResult inOneProcess(const std::vector<PipelineTrace>& pipelines) {
  std::vector<const PipelineTrace*> all;
  for (const PipelineTrace& pl : pipelines) all.push_back(&pl);
  JobResult job;
  analyzeJob(pipelines, dpWaitsOf(all), job);
  return job;
}

TEST(JobRounds, ReplicasDealtToProcessesGiveTheOneProcessJob) {
  for (unsigned seed = 1; seed <= 24; ++seed) {
    std::mt19937 rng(seed);
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    auto factor = [&] { return std::uniform_real_distribution<double>(1.1, 1.8)(rng); };
    const int p = pick(2, 4), m = 2 * pick(2, 4), steps = pick(2, 4), n = pick(2, 5);
    std::vector<PipelineTrace> pipelines;
    std::string faults;
    for (int d = 0; d < n; ++d) {
      ReplicaFault f;
      switch (pick(0, 5)) {
        case 1:
          f.everyOp = factor();
          faults += " replica " + std::to_string(d) + " slow";
          break;
        case 2:
          f.slowStage = pick(0, p - 1);
          f.stageFactor = factor();
          faults += " replica " + std::to_string(d) + " stage " + std::to_string(f.slowStage);
          break;
        case 3:
          f.longMb = pick(0, m - 1);
          f.mbFactor = factor();
          faults += " replica " + std::to_string(d) + " mb " + std::to_string(f.longMb);
          break;
        case 4:
          f.stall = true;
          f.stallStage = pick(0, p - 1);
          f.stallStep = pick(0, steps - 1);
          f.stallMb = pick(0, m - 1);
          faults += " replica " + std::to_string(d) + " stall on stage " +
                    std::to_string(f.stallStage) + " step " + std::to_string(f.stallStep);
          break;
        case 5:
          f.extraSteps = 1;
          faults += " replica " + std::to_string(d) + " one step more";
          break;
        default:
          break;
      }
      pipelines.push_back(replicaPipeline(p, m, steps, d, f));
    }
    const int processes = pick(1, n);
    std::vector<int> processOf(n);
    for (int& q : processOf) q = pick(0, processes - 1);
    SCOPED_TRACE("seed " + std::to_string(seed) + ": p " + std::to_string(p) + ", m " +
                 std::to_string(m) + ", " + std::to_string(n) + " replicas on " +
                 std::to_string(processes) + " processes;" + faults);
    const JobResult whole = inOneProcess(pipelines);
    ASSERT_GT(whole.steps, 0);
    ASSERT_EQ(whole.dpRanks.size(), pipelines.size());
    EXPECT_EQ(describe(inRounds(pipelines, processOf, processes)), describe(whole));
  }
}

// A replica with a step the others lack: the rounds leave it out and say so, as one process does.
TEST(JobRounds, AStepOnOneReplicaIsLeftOutAndSaid) {
  ReplicaFault more;
  more.extraSteps = 1;
  const std::vector<PipelineTrace> pipelines = {replicaPipeline(2, 4, 2, 0, {}),
                                                replicaPipeline(2, 4, 2, 1, more)};
  const JobResult job = inRounds(pipelines, {0, 1}, 2);
  EXPECT_EQ(job.steps, 2);
  ASSERT_FALSE(job.notes.empty());
  EXPECT_EQ(job.notes.front(), "1 step(s) missing on some replica: left out of the job's slowdown");
  EXPECT_EQ(describe(job), describe(inOneProcess(pipelines)));
}

// Every message cut short throws std::runtime_error; none reads past its bytes.
TEST(JobRounds, BytesCutShortThrow) {
  ReplicaFault slow;
  slow.longMb = 1;
  slow.mbFactor = 1.6;
  const std::vector<PipelineTrace> pipelines = {replicaPipeline(3, 4, 2, 0, {}),
                                                replicaPipeline(3, 4, 2, 1, slow)};
  std::vector<ReplicaSteps> replicas;
  for (const PipelineTrace& pl : pipelines) replicas.push_back({&pl, buildStepViews(pl)});
  std::vector<ReplicaCosts> costs;
  for (const ReplicaSteps& r : replicas) costs.push_back(replicaCostsOf(r));
  std::string bytes;
  traces::ByteWriter w(bytes);
  encodeArrivals(arrivalsOf(pipelines[1]), w);
  encodeReplicaCosts(costs[1], w);
  JobIdealSums sums;
  for (ReplicaCosts& c : costs) sums.add(c);
  const JobIdeal ideal = sums.finish();
  encodeJobIdeal(ideal, w);
  encodeReplay(replayReplica(replicas[1], ideal), w);
  encodeSequenceImbalance(sequenceImbalanceOf(replicas[1]), w);
  auto decodeAll = [](std::string_view b) {
    traces::ByteReader r(b);
    decodeArrivals(r);
    decodeReplicaCosts(r);
    decodeJobIdeal(r);
    decodeReplay(r);
    decodeSequenceImbalance(r);
    return r.done();
  };
  ASSERT_TRUE(decodeAll(bytes));
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    EXPECT_THROW(decodeAll(std::string_view(bytes).substr(0, cut)), std::runtime_error) << cut;
  }
  // A count that the bytes left cannot hold is refused before it sizes anything.
  std::string huge;
  traces::ByteWriter h(huge);
  h.value<uint32_t>(1);  // a replay's width, then its makespans' count
  h.value<uint64_t>(uint64_t{1} << 60);
  traces::ByteReader r(huge);
  EXPECT_THROW(decodeReplay(r), std::runtime_error);
}

// Each replica's stage waits at the DP sync for the last replica's, on the steps every replica
// has; sent as bytes, the waits come back whole, and bytes that disagree with themselves throw.
TEST(DpWaits, EachStageWaitsForTheLastReplicaOnStepsEveryReplicaHas) {
  std::vector<ReplicaArrivals> arrivals(3);
  for (int d = 0; d < 3; ++d) {
    arrivals[d].dpRank = d;
    arrivals[d].p = 2;
    arrivals[d].byStep[7] = {100 + d, 300 - d};      // stage 0: replica 2 last; stage 1: replica 0
    if (d != 1) arrivals[d].byStep[9] = {500, 600};  // not on replica 1: no waits
  }
  arrivals[0].byStep[5] = {10, INT64_MIN};
  arrivals[1].byStep[5] = {30, INT64_MIN};
  arrivals[2].byStep[5] = {20, INT64_MIN};  // stage 1 ran nothing in step 5
  const std::vector<DpWaits> waits = dpWaitsFrom(arrivals);
  ASSERT_EQ(waits.size(), 3u);
  EXPECT_EQ(waits[0].steps, (std::vector<int64_t>{5, 7}));
  EXPECT_EQ(waits[0].at(7, 0)->wait, 2);
  EXPECT_EQ(waits[0].at(7, 0)->lastDp, 2);
  EXPECT_EQ(waits[2].at(7, 0)->wait, 0);
  EXPECT_EQ(waits[2].at(7, 1)->wait, 2);
  EXPECT_EQ(waits[2].at(7, 1)->lastDp, 0);
  EXPECT_EQ(waits[0].at(5, 0)->wait, 20);
  EXPECT_EQ(waits[0].at(5, 0)->lastDp, 1);
  EXPECT_EQ(waits[0].at(5, 1)->lastDp, -1);
  EXPECT_EQ(waits[0].at(9, 0), nullptr);
  EXPECT_EQ(waits[0].at(6, 0), nullptr);
  EXPECT_EQ(waits[0].at(7, 2), nullptr);
  EXPECT_EQ(waits[0].at(7, -1), nullptr);

  std::string bytes;
  {
    traces::ByteWriter w(bytes);
    encodeDpWaits(waits[2], w);
  }
  traces::ByteReader r(bytes);
  const DpWaits back = decodeDpWaits(r);
  EXPECT_EQ(back.steps, waits[2].steps);
  EXPECT_EQ(back.at(7, 1)->wait, 2);
  EXPECT_EQ(back.at(7, 1)->lastDp, 0);

  DpWaits damaged = waits[2];
  damaged.p = 3;  // its waits are two a step
  std::string bad;
  {
    traces::ByteWriter w(bad);
    encodeDpWaits(damaged, w);
  }
  traces::ByteReader rb(bad);
  EXPECT_THROW(decodeDpWaits(rb), std::runtime_error);
}

}  // namespace
}  // namespace bubblescope::analysis
