// The schedule generators: Megatron's warm-up counts and order, the ZB patterns' in-flight
// counts and layouts, validity for many (p, m), and one-sentence errors for bad parameters.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "reference_engine/schedule/schedule.h"
#include "reference_engine/schedule/validate.h"

namespace bubblescope::engine {
namespace {

// Forwards a stage runs before its first backward: Megatron's warm-up, plus the steady phase's
// leading forward when there is a steady phase.
int forwardsBeforeFirstBackward(const std::vector<Op>& ops) {
  const auto firstBackward = std::find_if(ops.begin(), ops.end(), [](const Op& op) {
    return op.kind == OpKind::B || op.kind == OpKind::BW;
  });
  return static_cast<int>(firstBackward - ops.begin());
}

std::vector<std::string> labels(const std::vector<Op>& ops) {
  std::vector<std::string> out;
  for (const Op& op : ops) out.push_back(label(op));
  return out;
}

std::string problemsText(const std::vector<Problem>& problems) {
  std::string text;
  for (const auto& p : problems) text += p.message + "\n";
  return text;
}

TEST(Generators, OneF1BWarmupIsMegatronsMinOfPMinusSMinus1AndM) {
  for (int p : {1, 2, 3, 4, 8}) {
    for (int m : {1, 2, p, p + 3, 4 * p}) {
      const Schedule s = Schedule::oneF1B(p, m);
      for (int stage = 0; stage < p; ++stage) {
        const int warmup = std::min(p - stage - 1, m);
        EXPECT_EQ(forwardsBeforeFirstBackward(s.stages[stage]), warmup < m ? warmup + 1 : m)
            << "p=" << p << " m=" << m << " stage " << stage;
      }
    }
  }
}

TEST(Generators, InterleavedWarmupIsMegatrons2PMinusSMinus1PlusVMinus1TimesP) {
  for (int p : {1, 2, 3, 4, 8}) {
    for (int v : {2, 3, 4}) {
      for (int m : {p, 2 * p, 4 * p}) {
        const Schedule s = Schedule::interleaved1F1B(p, m, v);
        for (int stage = 0; stage < p; ++stage) {
          const int total = m * v;
          const int warmup = std::min(2 * (p - stage - 1) + (v - 1) * p, total);
          EXPECT_EQ(forwardsBeforeFirstBackward(s.stages[stage]),
                    warmup < total ? warmup + 1 : total)
              << "p=" << p << " v=" << v << " m=" << m << " stage " << stage;
        }
      }
    }
  }
}

TEST(Generators, InterleavedFollowsMegatronScheduleTableInGroupsOfP) {
  // p=2, m=4, v=2: forwards take (mb, chunk) in groups of p microbatches per chunk:
  // (0,0) (1,0) (0,1) (1,1) (2,0) (3,0) (2,1) (3,1); backwards the same with chunks reversed.
  const Schedule s = Schedule::interleaved1F1B(2, 4, 2);
  EXPECT_EQ(
      labels(s.stages[0]),
      (std::vector<std::string>{"F0", "F1", "F0.1", "F1.1", "F2", "BW0.1", "F3", "BW1.1", "F2.1",
                                "BW0", "F3.1", "BW1", "BW2.1", "BW3.1", "BW2", "BW3"}));
  EXPECT_EQ(labels(s.stages[1]), (std::vector<std::string>{
                                     "F0", "F1", "F0.1", "BW0.1", "F1.1", "BW1.1", "F2", "BW0",
                                     "F3", "BW1", "F2.1", "BW2.1", "F3.1", "BW3.1", "BW2", "BW3"}));
}

TEST(Generators, ZbH1KeepsOneF1BInFlightCountPMinusS) {
  for (int p : {1, 2, 4, 8}) {
    const Schedule s = Schedule::zbH1(p, 3 * p);
    const Schedule classic = Schedule::oneF1B(p, 3 * p);
    EXPECT_EQ(peakInFlight(s), peakInFlight(classic)) << "p=" << p;
    for (int stage = 0; stage < p; ++stage) EXPECT_EQ(peakInFlight(s)[stage], p - stage);
  }
}

TEST(Generators, ZbH1StartsBackwardAsEarlyAsOneF1BAndDefersWeightGradient) {
  // Stage 1 of 2: F0 B0 (its W held back one microbatch), then F1 B1 W0, ...
  const Schedule s = Schedule::zbH1(2, 3);
  EXPECT_EQ(labels(s.stages[1]),
            (std::vector<std::string>{"F0", "B0", "F1", "B1", "W0", "F2", "B2", "W1", "W2"}));
  EXPECT_EQ(labels(s.stages[0]),
            (std::vector<std::string>{"F0", "F1", "B0", "W0", "F2", "B1", "W1", "B2", "W2"}));
}

TEST(Generators, ZbH2WarmsUpWith2PMinusSMinus1ForwardsAndEndsWith2SPlus1Ws) {
  for (int p : {1, 2, 3, 4, 8}) {
    const int m = 3 * p;
    const Schedule s = Schedule::zbH2(p, m);
    for (int stage = 0; stage < p; ++stage) {
      const auto& ops = s.stages[stage];
      EXPECT_EQ(forwardsBeforeFirstBackward(ops), 2 * (p - stage) - 1) << "stage " << stage;
      EXPECT_EQ(peakInFlight(s)[stage], 2 * (p - stage) - 1);
      const auto lastB =
          std::find_if(ops.rbegin(), ops.rend(), [](const Op& op) { return op.kind == OpKind::B; });
      EXPECT_EQ(lastB - ops.rbegin(), 2 * stage + 1) << "p=" << p << " stage " << stage;
    }
  }
}

TEST(Generators, ZbVStageHoldsChunksSAnd2PMinus1MinusS) {
  const int p = 4;
  const Schedule s = Schedule::zbV(p, 8);
  EXPECT_EQ(s.v, 2);
  EXPECT_EQ(s.layout, ChunkLayout::V);
  for (int stage = 0; stage < p; ++stage) {
    EXPECT_EQ(s.virtualStage(stage, 0), stage);
    EXPECT_EQ(s.virtualStage(stage, 1), 2 * p - 1 - stage);
    EXPECT_EQ(peakInFlight(s)[stage], 2 * p) << "2p chunk activations = p M_B on every stage";
  }
  // The bottom of the V: stage p-1 turns microbatch 0 around at once (chunk 0, then chunk 1).
  EXPECT_EQ(labels(s.stages[p - 1]).at(0), "F0");
  EXPECT_EQ(labels(s.stages[p - 1]).at(1), "F0.1");
  // Stage 0 warms up with 2p-1 forwards of chunk 0, then the last chunk's first forward.
  EXPECT_EQ(forwardsBeforeFirstBackward(s.stages[0]), 2 * p);
  EXPECT_EQ(labels(s.stages[0]).at(2 * p - 1), "F0.1");
}

TEST(Generators, ZeroBubbleFamilySplitsBackwardIntoBAndW) {
  for (const char* name : {"zb-h1", "zb-h2", "zb-v"}) {
    const Schedule s = Schedule::byName(name, 4, 8);
    EXPECT_TRUE(s.splitsBackward()) << name;
    for (const auto& ops : s.stages) {
      const auto count = [&](OpKind k) {
        return std::count_if(ops.begin(), ops.end(), [k](const Op& op) { return op.kind == k; });
      };
      EXPECT_EQ(count(OpKind::F), 8 * s.v);
      EXPECT_EQ(count(OpKind::B), 8 * s.v);
      EXPECT_EQ(count(OpKind::W), 8 * s.v);
      EXPECT_EQ(count(OpKind::BW), 0);
    }
  }
  EXPECT_FALSE(Schedule::oneF1B(4, 8).splitsBackward());
}

TEST(Generators, EveryGeneratorPassesValidateForManyStageAndMicrobatchCounts) {
  for (int p : {1, 2, 3, 4, 8}) {
    for (int m : {1, 2, 3, p, p + 1, 2 * p - 1, 2 * p, 3 * p + 1, 4 * p, 17}) {
      if (m < 1) continue;
      for (const char* name : {"gpipe", "1f1b", "zb-h1", "zb-h2", "zb-v"}) {
        const Schedule s = Schedule::byName(name, p, m);
        EXPECT_EQ(problemsText(validate(s)), "") << name << " p=" << p << " m=" << m;
      }
    }
    for (int v : {2, 3, 4}) {
      for (int m : {p, 2 * p, 3 * p, 8 * p}) {
        const Schedule s = Schedule::interleaved1F1B(p, m, v);
        EXPECT_EQ(problemsText(validate(s)), "")
            << "interleaved p=" << p << " m=" << m << " v=" << v;
      }
    }
  }
}

struct BadParameters {
  const char* schedule;
  int p, m, v;
  const char* mentions;  // what the one-sentence message must name
};

TEST(Generators, BadParametersThrowOneSentenceNamingTheParameter) {
  const BadParameters cases[] = {
      {"gpipe", 0, 4, 2, "p=0"},
      {"1f1b", 4, 0, 2, "m=0"},
      {"zb-h1", -1, 4, 2, "p=-1"},
      {"zb-h2", 2, -3, 2, "m=-3"},
      {"zb-v", 0, 4, 2, "p=0"},
      {"zb-v", 4, 0, 2, "m=0"},
      {"interleaved", 4, 8, 1, "v=1"},
      {"interleaved", 4, 6, 2, "multiple of p (m=6, p=4)"},
      {"pipedream", 4, 8, 2, "unknown schedule 'pipedream'"},
  };
  for (const auto& c : cases) {
    try {
      Schedule::byName(c.schedule, c.p, c.m, c.v);
      ADD_FAILURE() << c.schedule << " accepted p=" << c.p << " m=" << c.m << " v=" << c.v;
    } catch (const ScheduleError& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find(c.mentions), std::string::npos) << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    }
  }
}

TEST(Generators, ZbH2AndZbVServeFewerMicrobatchesThanTheirWarmupByTrimming) {
  // Both patterns are laid out for m >= 2p-1; with fewer they keep the same order minus the
  // missing microbatches (as torch's ScheduleZBVZeroBubble does), still valid.
  for (const char* name : {"zb-h2", "zb-v"}) {
    const Schedule s = Schedule::byName(name, 4, 2);
    EXPECT_EQ(s.m, 2);
    EXPECT_EQ(problemsText(validate(s)), "") << name;
  }
}

// ZB-H2 and ZB-V are laid out for at least 2p - 1 microbatches and cut back to m: cut while
// walking the pattern (issue 28: never p x 2p ops for a small m), they must keep exactly the ops
// of microbatches < m of the full pattern, in its order.
TEST(Generators, ZbPatternsCutToFewMicrobatchesAreTheFullPatternsOpsOfThoseMicrobatches) {
  for (const auto& [name, make] :
       std::vector<std::pair<const char*, Schedule (*)(int, int)>>{{"ZB-H2", &Schedule::zbH2},
                                                                   {"ZB-V", &Schedule::zbV}}) {
    for (int p = 1; p <= 12; ++p) {
      const int n = 2 * p - 1;
      const Schedule full = make(p, n);
      for (int m = 1; m <= n + 2; ++m) {
        SCOPED_TRACE(std::string(name) + " p=" + std::to_string(p) + " m=" + std::to_string(m));
        const Schedule cut = make(p, m);
        EXPECT_EQ(cut.m, m);
        const Schedule reference = m <= n ? full : make(p, m);
        for (int s = 0; s < p; ++s) {
          std::vector<Op> kept;
          for (const Op& op : reference.stages[s]) {
            if (op.mb < m) kept.push_back(op);
          }
          EXPECT_EQ(cut.stages[s], kept) << "stage " << s;
        }
      }
    }
  }
}

TEST(Generators, ZbPatternsForManyStagesAndFewMicrobatchesHoldOnlyTheirOps) {
  // 10,000 stages and m = 2: a pattern laid out in full would hold 1.2 * 10^9 ops.
  const int p = 10'000, m = 2;
  for (const Schedule& s : {Schedule::zbH2(p, m), Schedule::zbV(p, m)}) {
    size_t ops = 0;
    for (const auto& stage : s.stages) ops += stage.size();
    EXPECT_EQ(ops, static_cast<size_t>(p) * m * (s.v == 2 ? 6 : 3));
    EXPECT_TRUE(structuralProblems(s).empty());
  }
}

}  // namespace
}  // namespace bubblescope::engine
