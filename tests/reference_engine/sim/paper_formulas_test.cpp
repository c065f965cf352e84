// The simulator reproduces the literature exactly (integer ns, transfer 0, equal stages):
// Qi et al., "Zero Bubble Pipeline Parallelism" (ICLR'24) Table 1 and §6, and Narayanan et al.
// (SC'21) §2.2. "Bubble" is the ZB paper's: the longest stage's idle inside its span.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "reference_engine/schedule/schedule.h"
#include "reference_engine/sim/paper_formulas.h"
#include "reference_engine/sim/simulate.h"

namespace bubblescope::engine {
namespace {

struct Costs {
  TimeNs f, b, w;
};

SimCosts simCosts(const Costs& c, int64_t mB = 1000) {
  SimCosts s;
  s.perKind = {c.f, c.b, c.w};
  s.memory = {mB, 0};
  return s;
}

const std::vector<int> kStages = {1, 2, 3, 4, 8};

TEST(PaperFormulas, GPipeAndOneF1BBubbleIsPMinus1TimesTfPlusTbPlusTwOnEveryStage) {
  // No condition on the costs: any T_F, T_B, T_W, including m < p.
  for (const Costs c : {Costs{1, 1, 1}, Costs{2, 3, 1}, Costs{5, 7, 0}, Costs{1000, 2000, 1500}}) {
    for (int p : kStages) {
      for (int m : {1, p, p + 1, 4 * p}) {
        for (const Schedule& s : {Schedule::gpipe(p, m), Schedule::oneF1B(p, m)}) {
          const SimResult r = simulate(s, simCosts(c));
          const TimeNs expected = (p - 1) * (c.f + c.b + c.w);
          EXPECT_EQ(r.bubble(), expected) << scheduleName(s.kind) << " p=" << p << " m=" << m;
          for (int st = 0; st < p; ++st) EXPECT_EQ(r.stages[st].idle, expected) << "stage " << st;
          EXPECT_EQ(r.makespan, (m + p - 1) * (c.f + c.b + c.w));
        }
      }
    }
  }
}

TEST(PaperFormulas, ZbH1BubbleIsPMinus1TimesTfPlusTbMinusTwWhenTwAtMostTfAndMAtLeastP) {
  // The paper's assumption for H1 is that W fits where 1F1B idles: T_W <= T_F (T_B may be
  // shorter than T_W, as in {3, 1, 2}); and m >= p so that there are Ws to fill with.
  for (const Costs c : {Costs{1, 1, 1}, Costs{2, 2, 1}, Costs{3, 4, 2}, Costs{5, 3, 2},
                        Costs{3, 1, 2}, Costs{4, 2, 2}, Costs{7, 5, 0}}) {
    for (int p : kStages) {
      for (int m : {p, p + 1, 2 * p, 3 * p + 1}) {
        const SimResult r = simulate(Schedule::zbH1(p, m), simCosts(c));
        EXPECT_EQ(r.bubble(), (p - 1) * (c.f + c.b - c.w))
            << "T=" << c.f << "," << c.b << "," << c.w << " p=" << p << " m=" << m;
      }
    }
  }
}

TEST(PaperFormulas, ZbH1BubbleExceedsTheFormulaWhenTwIsLongerThanTf) {
  // Outside the assumption the W that fills stage s's gap is too long for it.
  const Costs c{1, 3, 2};
  const SimResult r = simulate(Schedule::zbH1(4, 8), simCosts(c));
  EXPECT_GT(r.bubble(), 3 * (c.f + c.b - c.w));
}

TEST(PaperFormulas, ZbH2BubbleIsPMinus1TimesTfPlusTbMinus2TwWhenTwAtMostTfAndTb) {
  // Assumptions of the paper: T_W <= T_F and T_W <= T_B; and the warm-up's 2p-1 microbatches.
  for (const Costs c : {Costs{1, 1, 1}, Costs{2, 2, 1}, Costs{3, 4, 2}, Costs{5, 3, 2},
                        Costs{4, 2, 2}, Costs{4, 2, 1}, Costs{6, 9, 0}}) {
    for (int p : kStages) {
      for (int m : {2 * p - 1, 2 * p, 3 * p + 1, 4 * p}) {
        const SimResult r = simulate(Schedule::zbH2(p, m), simCosts(c));
        EXPECT_EQ(r.bubble(), (p - 1) * (c.f + c.b - 2 * c.w))
            << "T=" << c.f << "," << c.b << "," << c.w << " p=" << p << " m=" << m;
      }
    }
  }
}

TEST(PaperFormulas, ZbH2HasNoBubbleAtEqualCosts) {
  for (int p : kStages) {
    const SimResult r = simulate(Schedule::zbH2(p, 3 * p), simCosts({4, 4, 4}));
    EXPECT_EQ(r.bubble(), 0) << "p=" << p;
    EXPECT_EQ(r.bubbleRate, 0.0);
  }
}

TEST(PaperFormulas, InterleavedBubbleIsOneOverVOfOneF1BsRelativeToIdealCompute) {
  // Each chunk costs T/v. Narayanan et al.: bubble / ideal compute = (1/v)(p-1)/m, i.e. the bubble
  // is (p-1)(T_F+T_B+T_W)/v. Holds for equal and unequal T_F, T_B (costs divisible by v).
  for (const Costs c : {Costs{12, 12, 12}, Costs{12, 24, 0}, Costs{24, 12, 12}}) {
    for (int p : kStages) {
      for (int v : {2, 3, 4}) {
        for (int m : {p, 2 * p, 4 * p}) {
          const SimResult r = simulate(Schedule::interleaved1F1B(p, m, v), simCosts(c));
          const TimeNs ideal = m * (c.f + c.b + c.w);
          EXPECT_EQ(r.bubble() * v * m, (p - 1) * ideal) << "p=" << p << " v=" << v << " m=" << m;
          EXPECT_EQ(r.bubble(), (p - 1) * (c.f + c.b + c.w) / v);
        }
      }
    }
  }
}

TEST(PaperFormulas, ZbVHasZeroBubbleAtEqualCostsOnceMAtLeast2PMinus1) {
  for (int p : kStages) {
    for (int m : {2 * p - 1, 2 * p, 3 * p, 4 * p + 1}) {
      const SimResult r = simulate(Schedule::zbV(p, m), simCosts({6, 6, 6}));
      EXPECT_EQ(r.bubble(), 0) << "p=" << p << " m=" << m;
      for (const auto& stage : r.stages) EXPECT_EQ(stage.span(), m * 18);
    }
  }
}

TEST(PaperFormulas, ZbVLeavesABubbleWithFewerMicrobatchesThan2PMinus1) {
  const SimResult r = simulate(Schedule::zbV(4, 6), simCosts({6, 6, 6}));
  EXPECT_GT(r.bubble(), 0);
}

TEST(PaperFormulas, PeakActivationsArePMbForOneF1BAndZbH1And2PMinus1MbForZbH2AndPMbForZbV) {
  const int64_t mB = 1000;  // M_W = 0, as the paper's counts assume
  for (int p : kStages) {
    const int m = 3 * p;
    const Costs c{1, 1, 1};
    EXPECT_EQ(simulate(Schedule::oneF1B(p, m), simCosts(c, mB)).peakMemory, p * mB);
    EXPECT_EQ(simulate(Schedule::zbH1(p, m), simCosts(c, mB)).peakMemory, p * mB);
    EXPECT_EQ(simulate(Schedule::zbH2(p, m), simCosts(c, mB)).peakMemory, (2 * p - 1) * mB);
    const SimResult v = simulate(Schedule::zbV(p, m), simCosts(c, mB));
    for (const auto& stage : v.stages) EXPECT_EQ(stage.peakMemory, p * mB) << "p=" << p;
    EXPECT_EQ(simulate(Schedule::gpipe(p, m), simCosts(c, mB)).peakMemory, m * mB);
  }
}

TEST(PaperFormulas, BubbleRateIsOneMinusMTimesTfTbTwOverLongestStageSpan) {
  const Costs c{2, 3, 1};
  for (const char* name : {"1f1b", "zb-h1", "zb-h2"}) {
    const Schedule s = Schedule::byName(name, 4, 12);
    const SimResult r = simulate(s, simCosts(c));
    const double span = static_cast<double>(r.stages[r.longestStage].span());
    EXPECT_DOUBLE_EQ(r.bubbleRate, 1.0 - 12.0 * (c.f + c.b + c.w) / span) << name;
  }
}

TEST(PaperFormulas, PredictionMatchesSimulationWheneverItsConditionsHold) {
  // The numbers `bubblescope simulate` prints beside the simulated ones.
  for (const Costs c : {Costs{12, 12, 12}, Costs{24, 12, 12}, Costs{12, 36, 24}}) {
    for (int p : kStages) {
      for (int m : {p, 2 * p - 1, 4 * p}) {
        for (const std::string name : {"gpipe", "1f1b", "interleaved", "zb-h1", "zb-h2", "zb-v"}) {
          if (name == "interleaved" && m % p != 0) continue;  // Megatron's requirement
          const Schedule s = Schedule::byName(name, p, m, 2);
          const SimResult r = simulate(s, simCosts(c, 1000));
          const auto paper = paperPrediction(s, {c.f, c.b, c.w});
          ASSERT_TRUE(paper.has_value());
          if (!paper->conditionsHold) continue;
          EXPECT_EQ(r.bubble(), paper->bubble) << name << " p=" << p << " m=" << m;
          EXPECT_EQ(r.peakMemory, static_cast<int64_t>(paper->peakActivations * 1000))
              << name << " p=" << p << " m=" << m;
        }
      }
    }
  }
}

}  // namespace
}  // namespace bubblescope::engine
