// Issue 26's sweep: every fault kind on every stage (every link, both directions) and in every
// phase, on 1F1B with fused and unfused p2p posts, on ZB-V and on interleaved 1F1B, clocks skewed
// (placement.h); the Kineto and Nsight Systems stacks on every placement, the agent's on a seeded
// sample. Each asserts the figures, the invariants on every gap and, where the fault shows, its
// class and its stage (sweep_check.h). The seed is printed with each placement;
// BUBBLESCOPE_SWEEP_SEED=N replays N.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/temp_dir.h"
#include "tests/tracegen/expect_found.h"
#include "tests/tracegen/placement.h"
#include "tests/tracegen/stack_analysis.h"
#include "tests/tracegen/sweep_check.h"
#include "tests/tracegen/sweep_seed.h"

namespace bubblescope::tracegen {
namespace {

// The seed the suite runs: fixed, so the known failures below are the same run after run.
constexpr uint64_t kDefaultSeed = 26;

// The placements the analysis is known to get wrong at kDefaultSeed, with the checks that miss
// there, on every stack that runs them (Kineto and nsys run all; the agent its sample). At that
// seed each must miss exactly these (a fix shows as a failure here: take the entry out); at
// another seed they are tolerated, and nothing else is. An entry is for a fault found and not yet
// fixed, never for one a change made worse.
struct KnownFailure {
  const char* placement;
  std::set<std::string> checks;
};

const std::vector<KnownFailure>& knownFailures() {
  // An entry names a placement and the checks it misses, with the figures that show why.
  static const std::vector<KnownFailure> known = {
      // Interleaved 1F1B, stage 0's every op 1.20x: the step is 4.2% longer than the fault-free
      // job's, but against the balanced ideal only S 1.0071 (found 1.0071): with stage 0 slow the
      // other stages run below the mean, and T_stage 62.87 ms is under T_ideal 63.77 ms (Kineto's
      // JSON; measured 64.22 ms). Imbalance is dominant (6.7 ms of idle against 2.7 ms of stall:
      // comm, steps 1-2), the root causes and the culprit name stage 0's imbalance, but the
      // largest avoidable gap is "stage 3 waited 1.0 ms because the gradients of BW1.1 on stage
      // 3 waited 0.3 ms on their stream behind the activations of F3.1 on stage 2, the link
      // stage 3 -> stage 2 moving one message at a time (stall: comm)": the pair queueing every
      // interleaved job has (its fault-free S 1.0115), larger here than any one imbalance gap.
      {"Interleaved_SlowStage_Stage0", {"blame"}},
  };
  return known;
}

const KnownFailure* knownFailure(const std::string& placement) {
  for (const KnownFailure& k : knownFailures()) {
    if (placement == k.placement) return &k;
  }
  return nullptr;
}

const char* stackName(Stack s) {
  return s == Stack::Kineto ? "Kineto" : s == Stack::Nsys ? "Nsys" : "Agent";
}

// The slots' names: the same at every seed, so ctest's list holds at any BUBBLESCOPE_SWEEP_SEED.
std::vector<std::string> slotNames() {
  std::vector<std::string> names;
  for (const Slot& s : sweepSlots()) names.push_back(s.name);
  return names;
}

// The placement at the seed in force, printed so that a failure can be replayed.
Placement announced(const std::string& name, Stack stack, uint64_t seed) {
  for (const Slot& s : sweepSlots()) {
    if (s.name != name) continue;
    Placement p = place(s, seed);
    std::printf("[ sweep    ] %s %s: %s (replay: BUBBLESCOPE_SWEEP_SEED=%llu)\n", stackName(stack),
                name.c_str(), p.where.c_str(), static_cast<unsigned long long>(seed));
    ::testing::Test::RecordProperty("seed", std::to_string(seed));
    ::testing::Test::RecordProperty("placement", p.where);
    return p;
  }
  throw std::invalid_argument("no slot " + name);
}

// BUBBLESCOPE_SWEEP_KEEP=DIR keeps each case's trace files in DIR/STACK-NAME, to open with
// `bubblescope analyze` or `view` (the agent's run, the Kineto and nsys exports).
void keepIfAsked(const std::filesystem::path& written, Stack stack, const std::string& name) {
  const char* keep = std::getenv("BUBBLESCOPE_SWEEP_KEEP");
  if (keep == nullptr || *keep == '\0') return;
  const std::filesystem::path to = std::filesystem::path(keep) / (stackName(stack) + ("-" + name));
  std::filesystem::remove_all(to);
  std::filesystem::create_directories(to);
  std::filesystem::copy(written, to, std::filesystem::copy_options::recursive);
  std::printf("[ sweep    ] kept in %s\n", to.c_str());
}

void analyseAndJudge(Stack stack, const std::string& name, uint64_t seed) {
  const Placement p = announced(name, stack, seed);
  testing::TempDir dir;
  const StackRun run = analyseAs(stack, p.spec, dir.path());
  keepIfAsked(dir.path(), stack, name);
  if (!run.result.pipelines.empty()) {
    // The figures behind a report of the sweep (`--gtest_output=json` keeps them).
    const analysis::PipelineResult& pl = run.result.pipelines[0];
    char figure[96];
    std::snprintf(figure, sizeof figure, "S %.4f / %.4f, step %.3f / %.3f ms", pl.slowdown,
                  run.truth.slowdown, pl.stepTimeMeasured / 1e6, run.truth.measuredStep / 1e6);
    ::testing::Test::RecordProperty("found_truth", figure);
  }
  const std::vector<Miss> misses = sweepMisses(run, p);
  std::string all;
  for (const Miss& m : misses) all += "  " + m.check + ": " + m.message + "\n";
  if (!all.empty()) std::printf("%s", all.c_str());
  const KnownFailure* known = knownFailure(name);
  if (known != nullptr && seed == kDefaultSeed) {
    std::set<std::string> missed;
    for (const Miss& m : misses) missed.insert(m.check);
    EXPECT_EQ(missed, known->checks)
        << "a known failure (issue 26) misses other checks than listed: drop from "
           "knownFailures() what passes now\n"
        << all << describe(run);
    return;
  }
  std::string unexpected;
  for (const Miss& m : misses) {
    if (known == nullptr || known->checks.count(m.check) == 0) {
      unexpected += m.check + ": " + m.message + "\n";
    }
  }
  EXPECT_EQ(unexpected, "") << p.where << "\n" << describe(run);
}

class FaultSweep : public ::testing::TestWithParam<std::string> {};

TEST_P(FaultSweep, KinetoFindsTheFaultWhereverItIs) {
  analyseAndJudge(Stack::Kineto, GetParam(), sweepSeed(kDefaultSeed));
}

TEST_P(FaultSweep, NsysFindsTheFaultWhereverItIs) {
  analyseAndJudge(Stack::Nsys, GetParam(), sweepSeed(kDefaultSeed));
}

INSTANTIATE_TEST_SUITE_P(Placements, FaultSweep, ::testing::ValuesIn(slotNames()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

// Placements other seeds drew that the analysis once got wrong, kept at those seeds (the suite's
// own seed draws others): each pins a rule of the blame walk (blame.h).
struct SeededPlacement {
  const char* slot;
  uint64_t seed;
};

std::vector<SeededPlacement> onceMissed() {
  return {
      // A drain's walk passed a slow link's 1.3 ms (stage 1 -> stage 0) on its way to a 0.3 ms
      // queue behind a healthy transfer that the link's knock-ons put in the way, and named the
      // queue: "stall: comm on stage 3", the link stage 3 -> stage 2. The larger stall passed
      // is the chain's answer.
      {"Interleaved_SlowLink_1to0", 2},
      {"Interleaved_SlowLink_1to0", 7},
      // A receive posted 0.9 ms after its data came, data the slow link's queue held 5.6 ms in
      // its send: the largest gap was the host's. The send's lateness is a piece the post is
      // weighed against.
      {"Interleaved_SlowLinkSenderLatePost_0to3", 1},
      // A receive posted 0.5 ms late, after the op before it on its stage: the walk went on to
      // that op (on time) instead of the producer a slow link held 1.9 ms, and named the post.
      {"OneF1BUnfused_SlowLinkSenderLatePost_2to3", 10},
      {"ZbV_SlowLinkSenderLatePost_2to3", 12},
      // The gap a receive posted 0.5 ms late ends, its data held 1 ms past the stage's free time
      // by the slow link's knock-ons: named by the post, the smaller piece inside it.
      {"Interleaved_SlowLinkSenderLatePost_3to0", 30},
  };
}

class FaultSweepOnceMissed : public ::testing::TestWithParam<SeededPlacement> {};

TEST_P(FaultSweepOnceMissed, KinetoFindsItNow) {
  analyseAndJudge(Stack::Kineto, GetParam().slot, GetParam().seed);
}

TEST_P(FaultSweepOnceMissed, NsysFindsItNow) {
  analyseAndJudge(Stack::Nsys, GetParam().slot, GetParam().seed);
}

INSTANTIATE_TEST_SUITE_P(Seeds, FaultSweepOnceMissed, ::testing::ValuesIn(onceMissed()),
                         [](const ::testing::TestParamInfo<SeededPlacement>& i) {
                           return std::string(i.param.slot) + "_seed" +
                                  std::to_string(i.param.seed);
                         });

#if BUBBLESCOPE_TRACEGEN_AGENT
// The agent's stack on a sample of the slots drawn from the seed: each case replays every rank
// under the real agent (~0.6 s, six times an nsys analysis), so all of them would not keep the
// sweep under a minute on two cores.
constexpr int kAgentSample = 24;

// The k-th of distinct slots, the same at the same seed (a seeded shuffle's head).
std::string sampledSlot(uint64_t seed, int k) {
  std::vector<std::string> names = slotNames();
  for (size_t i = names.size() - 1; i > 0; --i) {
    std::swap(names[i], names[seededIndex(seed, "agent#" + std::to_string(i), i + 1)]);
  }
  return names.at(k);
}

class FaultSweepAgentSample : public ::testing::TestWithParam<int> {};

TEST_P(FaultSweepAgentSample, AgentFindsTheFaultToo) {
  analyseAndJudge(Stack::Agent, sampledSlot(sweepSeed(kDefaultSeed), GetParam()),
                  sweepSeed(kDefaultSeed));
}

INSTANTIATE_TEST_SUITE_P(Placements, FaultSweepAgentSample, ::testing::Range(0, kAgentSample));
#endif

}  // namespace
}  // namespace bubblescope::tracegen
