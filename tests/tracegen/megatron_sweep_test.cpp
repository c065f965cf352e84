// Megatron-LM jobs with each fault on every stage, replica and TP rank in turn, under 1F1B and
// interleaved 1F1B, their shape, strength and jitter drawn from a printed seed: the job's culprit
// names where the fault is, S is the truth's, both models reproduce the job, and every gap of every
// pipeline keeps the gap invariants; with no fault, no pipeline finds more than noise and its
// data loader to win back. BUBBLESCOPE_SWEEP_SEED=N replays a seed.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "analyzer/analyze.h"
#include "analyzer/report/figures.h"
#include "tests/support/temp_dir.h"
#include "tests/tracegen/job_sweep_checks.h"
#include "tests/tracegen/megatron_truth.h"
#include "tests/tracegen/ndtimeline_writer.h"
#include "tests/tracegen/sweep_seed.h"
#include "traces/import/run_import.h"

namespace bubblescope::tracegen {
namespace {

constexpr uint64_t kDefaultSeed = 26;  // the suite's: fixed, so a run is the same run after run

enum class Fault { None, Stage, Replica, TpRank };

// Where the fault goes: fixed by the slot, so every stage (replica) is one slot; the rest is drawn.
struct Slot {
  std::string name;
  Fault fault = Fault::None;
  int v = 1;      // model chunks per stage: 2 is interleaved 1F1B
  int pp = 4;     // stages
  int where = 0;  // the slow stage, replica, or the TP rank's stage
};

void PrintTo(const Slot& s, std::ostream* os) {
  *os << s.name;
}

std::vector<Slot> slots() {
  std::vector<Slot> out;
  for (int v : {1, 2}) {
    const std::string sched = v == 1 ? "OneF1B" : "Interleaved";
    out.push_back({"FaultFree_" + sched, Fault::None, v, 4, 0});
    for (int pp : {2, 4}) {
      for (int s = 0; s < pp; ++s) {
        out.push_back(
            {"SlowStage_" + sched + "_Pp" + std::to_string(pp) + "_Stage" + std::to_string(s),
             Fault::Stage, v, pp, s});
      }
    }
    for (int d = 0; d < 4; ++d) {
      out.push_back(
          {"SlowReplica_" + sched + "_Replica" + std::to_string(d), Fault::Replica, v, 4, d});
    }
    for (int s = 0; s < 4; ++s) {
      out.push_back({"SlowTpRank_" + sched + "_Stage" + std::to_string(s), Fault::TpRank, v, 4, s});
    }
  }
  return out;
}

// The slot's job at the seed: the same (seed, slot) gives the same job on every machine.
MegatronJob jobOf(const Slot& slot, uint64_t seed, std::string& drawn) {
  SlotDraw draw(seed, slot.name);
  MegatronJob j;
  j.pp = slot.pp;
  j.v = slot.v;
  j.m = slot.pp * draw.pick(2, 4);  // interleaving needs a multiple of pp; 1F1B takes any
  j.dp = slot.fault == Fault::Replica ? 4 : draw.pick(2, 3);
  j.jitter = draw.between(0.0, 0.03);
  j.seed = draw.next();
  if (j.v > 1) j.costF /= 2, j.costB /= 2;
  switch (slot.fault) {
    case Fault::None:
      break;
    case Fault::Stage:
      j.slowStage = slot.where, j.slowStageFactor = draw.between(1.3, 1.8);
      break;
    case Fault::Replica:
      j.slowReplica = slot.where, j.slowReplicaFactor = draw.between(1.2, 1.6);
      break;
    case Fault::TpRank:
      j.tp = 2;
      j.slowTpRank =
          MegatronJob::TpRank{draw.pick(0, j.dp - 1), slot.where, draw.pick(0, j.tp - 1)};
      j.slowTpFactor = draw.between(1.3, 1.8);
      break;
  }
  const double factor = slot.fault == Fault::Stage     ? j.slowStageFactor
                        : slot.fault == Fault::Replica ? j.slowReplicaFactor
                        : slot.fault == Fault::TpRank  ? j.slowTpFactor
                                                       : 1.0;
  char line[160];
  std::snprintf(
      line, sizeof line, "seed %llu: PP%d x TP%d x DP%d, v %d, m %d, jitter %.3f, factor %.3f",
      static_cast<unsigned long long>(seed), j.pp, j.tp, j.dp, j.v, j.m, j.jitter, factor);
  drawn = line;
  if (j.slowTpRank) {
    drawn += " on TP rank (dp " + std::to_string(j.slowTpRank->dp) + ", pp " +
             std::to_string(j.slowTpRank->pp) + ", tp " + std::to_string(j.slowTpRank->tp) + ")";
  }
  return j;
}

ExpectedCulprit expectedOf(const Slot& slot, const MegatronJob& j) {
  switch (slot.fault) {
    case Fault::None:
      return {"no straggler"};
    case Fault::Stage:
      return {"stage " + std::to_string(slot.where) + ": S_s = ", slot.where, -1};
    case Fault::Replica:
      return {"DP replica " + std::to_string(slot.where) + ", every stage: S_d = ", -1, slot.where};
    case Fault::TpRank:
      return {"DP replica " + std::to_string(j.slowTpRank->dp) + ", stage " +
                  std::to_string(slot.where) + ": S_d = ",
              slot.where, j.slowTpRank->dp};
  }
  return {};
}

class MegatronSweep : public ::testing::TestWithParam<Slot> {};

TEST_P(MegatronSweep, TheCulpritIsWhereTheFaultIs) {
  const Slot& slot = GetParam();
  std::string drawn;
  const MegatronJob job = jobOf(slot, sweepSeed(kDefaultSeed), drawn);
  std::printf("[ sweep    ] %s: %s\n", slot.name.c_str(), drawn.c_str());
  testing::TempDir dir;
  const MegatronTimeline tl = executeMegatron(job);
  const auto file = dir.path() / "timeline.json";
  writeNdTimeline(tl, file, /*gzip=*/false);
  keepIfAsked(file, slot.name);
  const MegatronTruth truth = megatronTruth(tl);
  const auto imported = traces::import::importRun(traces::import::resolveInputs({file}));
  const analysis::AnalysisResult result = analysis::analyzeRun(imported.run);
  const analysis::JobResult& jr = result.job;
  ASSERT_TRUE(jr.present) << drawn;
  std::printf("[ sweep    ] S %.4f, truth %.4f; culprit: %s\n", jr.slowdown, truth.slowdown,
              jr.culprit.c_str());
  ASSERT_EQ(result.pipelines.size(), static_cast<size_t>(job.dp)) << drawn;
  expectJobCulprit(jr, expectedOf(slot, job), drawn);
  expectJobSlowdown(jr, truth.slowdown, truth.measuredStep, truth.idealStep, 0.03, drawn);
  expectModelsReproduceAndGapsHold(result, drawn);
  for (const analysis::PipelineResult& pl : result.pipelines) {
    const std::string which = drawn + "\npipeline " + std::to_string(pl.dpRank);
    // No fault: what a better balance or schedule would win back is noise, but for the job's
    // one stall: its data loader holds each step's first forward (MegatronJob::dataLoad). A host
    // stall is that one, never the schedule's own posting. The noise is 1.5% of the span, where
    // the Kineto and nsys sweeps hold 1% (expect_found.h): the replay takes a blocking batch to
    // end one transfer after the last of its other sides' posts, not after the later of both
    // sides' (SimCosts::awaits), and interleaved jobs of few microbatches left up to 1.08%
    // (seeds 1-60; 2-3.7% before the batches were replayed, as unexplained stalls).
    if (slot.fault == Fault::None) {
      const TimeNs host = pl.total.idleByClass[static_cast<int>(analysis::IdleClass::HostStall)];
      EXPECT_LT(analysis::avoidableIdle(pl.total) - host, pl.total.span * 3 / 200)
          << which << ": " << pl.culprit;
      TimeNs otherHost = 0;
      std::string largest;
      TimeNs largestIdle = -1;
      for (const analysis::Gap& g : pl.gaps) {
        if (g.dominant != analysis::IdleClass::HostStall ||
            g.blame.text.find("'data-load'") != std::string::npos) {
          continue;
        }
        otherHost += g.idle;
        if (g.idle > largestIdle) largestIdle = g.idle, largest = g.blame.text;
      }
      const double span = static_cast<double>(pl.total.span);
      std::printf(
          "[ sweep    ] pipeline %d: avoidable but the host's %.2f%%, host stalls not the data "
          "loader's %.3f%% of the span\n",
          pl.dpRank, 100.0 * static_cast<double>(analysis::avoidableIdle(pl.total) - host) / span,
          100.0 * static_cast<double>(otherHost) / span);
      EXPECT_LT(otherHost, pl.total.span / 1000) << which << ": the largest: " << largest;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Placements, MegatronSweep, ::testing::ValuesIn(slots()),
                         [](const auto& test) { return test.param.name; });

}  // namespace
}  // namespace bubblescope::tracegen
