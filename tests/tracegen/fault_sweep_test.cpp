// Issue 26's sweep: every fault kind on every stage (every link, both directions) and in every
// phase, on 1F1B with fused and unfused p2p posts and on ZB-V, clocks skewed (placement.h); the
// Kineto and Nsight Systems stacks on every placement, the agent's on a seeded sample. Each asserts
// the figures, the invariants on every gap and, where the fault shows, its class and its stage
// (sweep_check.h). The seed is printed with each placement; BUBBLESCOPE_SWEEP_SEED=N replays N.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
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

namespace bubblescope::tracegen {
namespace {

// The seed the suite runs: fixed, so the known failures below are the same run after run.
constexpr uint64_t kDefaultSeed = 26;

// BUBBLESCOPE_SWEEP_SEED, else the default; 0 with a failure when it is not a number.
uint64_t sweepSeed() {
  const char* env = std::getenv("BUBBLESCOPE_SWEEP_SEED");
  if (env == nullptr || *env == '\0') return kDefaultSeed;
  char* end = nullptr;
  const uint64_t seed = std::strtoull(env, &end, 10);
  if (*end != '\0') {
    ADD_FAILURE() << "BUBBLESCOPE_SWEEP_SEED=" << env << " is not a number";
    return 0;
  }
  return seed;
}

// issue 26: analyzer fix pending. The placements the analysis gets wrong at kDefaultSeed, with
// the checks that miss there, on every stack that runs them (Kineto and nsys run all; the agent
// its sample). At that seed each must miss exactly these (a fix shows as a failure here: take the
// entry out); at another seed they are tolerated, and nothing else is. Figures, the model and the
// gap invariants hold on all of them: what is wrong is which class and stage the idle is given.
struct KnownFailure {
  const char* placement;
  std::set<std::string> checks;
};

const std::vector<KnownFailure>& knownFailures() {
  static const std::vector<KnownFailure> known = {
      // ZB-V, a host stall's knock-on through a pair's stream: stage 3's B0 of chunk 1 waits for
      // a receive queued behind the late messages, and the walk stops there: "stage 3 waited
      // 7.9 ms because B0.1 on stage 3 started 8.0 ms after it was ready although the host
      // launched it in time (stall: other)", blamed on stage 3. F1 (chunk 1) of step 2 on stage
      // 1, 16.1 ms: stall: host 13.5 ms, stall: other 13.9 ms.
      {"ZbV_HostStall_Stage1_Warmup", {"dominant", "blame"}},
      // F0 (chunk 1) of step 2 on stage 0, 21.0 ms: stall: host 12.6 ms, stall: other 38.0 ms;
      // culprit "stall: other on stage 3: 12.8 ms of idle ..."; largest gap "stage 3 waited
      // 13.7 ms because B0.1 on stage 3 started 13.8 ms after it was ready although the host
      // launched it in time (stall: other)".
      {"ZbV_HostStallAtPost_Stage0_Warmup", {"dominant", "culprit", "blame"}},
      // ZB-V, a slow link (zb_v_stack_test leaves its CommDelay out for this): the messages
      // queued behind the slow ones on the pair's stream come late, and the walk stops at
      // "B0.1 on stage 3 started 6.8 ms after it was ready although the host launched it in
      // time (stall: other)". Each: stall: other dominant (0to1: 68.4 ms against 12.6 ms of
      // stall: comm; 1to0 53.6 ms against none; 1to2 31.6 against 2.9; 2to1 28.9 against 4.2;
      // 2to3 58.8 against none; 3to2 54.4 against 24.6), the culprit "stall: other on stage 3"
      // (1to0: stage 1; 1to2, 2to1: stage 2), and the largest gap blamed on stage 3 for stall:
      // other (1to0: stage 1; 2to3: "stage 0 waited 3.4 ms, 2.5 ms of it beyond what the op
      // costs explain, ... (stall: other); of the rest, 0.90 ms for the pipeline to fill
      // (warm-up bubble)", whose Blame::cause is warm-up and stage -1).
      {"ZbV_SlowLink_0to1", {"dominant", "culprit", "blame"}},
      {"ZbV_SlowLink_1to0", {"dominant", "culprit", "blame"}},
      {"ZbV_SlowLink_1to2", {"dominant", "culprit", "blame"}},
      {"ZbV_SlowLink_2to1", {"dominant", "culprit", "blame"}},
      {"ZbV_SlowLink_2to3", {"dominant", "culprit", "blame"}},
      {"ZbV_SlowLink_3to2", {"dominant", "culprit", "blame"}},
      // 1F1B with unfused posts, a slow link 2 -> 1 (the only direction that misses, at every
      // seed tried): stall: other 44.1 ms against 2.1 ms of stall: comm; culprit "stall: other
      // on stage 3: 20.2 ms of idle ..."; largest gap "stage 0 waited 3.5 ms while the pipeline
      // drains, as the schedule itself does (drain bubble)", a schedule-own class heading the
      // list of avoidable gaps.
      {"OneF1BUnfused_SlowLink_2to1", {"dominant", "culprit", "blame"}},
      // 1F1B with unfused posts and no fault: a pair's two messages queue one behind the other,
      // 1.6 ms a step over the fused ideal (S 1.023, found). The analysis puts it in schedule
      // bubble and drain and 5.5 ms of stall: other, none in stall: comm; culprit "stall: other
      // on stage 0: 0.1 ms of idle over the steps analysed; ... shrink by about 1.6 ms (2%)"
      // (0.1 ms: the stall idle inside gaps labelled a stall only); largest avoidable gap
      // "stage 0 waited 2.5 ms while the pipeline drains, as the schedule itself does (drain
      // bubble)".
      {"OneF1BUnfused_FaultFree", {"dominant", "culprit", "blame"}},
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

void analyseAndJudge(Stack stack, const std::string& name) {
  const uint64_t seed = sweepSeed();
  const Placement p = announced(name, stack, seed);
  testing::TempDir dir;
  const StackRun run = analyseAs(stack, p.spec, dir.path());
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
  analyseAndJudge(Stack::Kineto, GetParam());
}

TEST_P(FaultSweep, NsysFindsTheFaultWhereverItIs) {
  analyseAndJudge(Stack::Nsys, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Placements, FaultSweep, ::testing::ValuesIn(slotNames()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

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
  analyseAndJudge(Stack::Agent, sampledSlot(sweepSeed(), GetParam()));
}

INSTANTIATE_TEST_SUITE_P(Placements, FaultSweepAgentSample, ::testing::Range(0, kAgentSample));
#endif

}  // namespace
}  // namespace bubblescope::tracegen
