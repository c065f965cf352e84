// Op costs: the --op-ms forms, the fused backward's cost, and faults that scale costs.
#include "reference_engine/executor/op_costs.h"

#include <gtest/gtest.h>

#include <set>

namespace bubblescope::engine {
namespace {

TEST(OpCosts, FusedBackwardCostsInputPlusWeightGradient) {
  OpCosts c = parseOpMs("2,3,1");
  EXPECT_DOUBLE_EQ(c.ms(OpKind::F), 2);
  EXPECT_DOUBLE_EQ(c.ms(OpKind::B), 3);
  EXPECT_DOUBLE_EQ(c.ms(OpKind::W), 1);
  EXPECT_DOUBLE_EQ(c.ms(OpKind::BW), 4);
}

TEST(OpCosts, OneValueSetsAllThreeKinds) {
  OpCosts c = parseOpMs("0.25");
  EXPECT_DOUBLE_EQ(c.fMs, 0.25);
  EXPECT_DOUBLE_EQ(c.bMs, 0.25);
  EXPECT_DOUBLE_EQ(c.wMs, 0.25);
}

TEST(OpCosts, MalformedOpMsIsRejected) {
  for (const char* bad : {"", "1,2", "1,2,3,4", "a,b,c", "1,-2,3", "1,,3", "nan"}) {
    EXPECT_THROW(parseOpMs(bad), std::invalid_argument) << bad;
  }
}

TEST(CostModel, SlowStageMultipliesOnlyItsOwnOps) {
  Faults f;
  f.slowStages = {{2, 1.5}};
  CostModel model(parseOpMs("2,2,2"), f, 1);
  EXPECT_EQ(model.opNs(2, 0, 0, OpKind::F), 3'000'000);
  EXPECT_EQ(model.opNs(1, 0, 0, OpKind::F), 2'000'000);
  EXPECT_EQ(model.opNs(2, 0, 1, OpKind::BW), 6'000'000);
}

TEST(CostModel, SlowStageWithAStepRangeScalesOnlyThoseSteps) {
  Faults f;
  f.slowStages = {{1, 2.0, StepRange{4, 6}}};
  CostModel model(parseOpMs("2,2,2"), f, 1);
  for (int step = 0; step < 8; ++step) {
    const int64_t expected = step >= 4 && step < 6 ? 4'000'000 : 2'000'000;
    EXPECT_EQ(model.opNs(1, step, 0, OpKind::F), expected) << "step " << step;
    EXPECT_EQ(model.opNs(0, step, 0, OpKind::F), 2'000'000) << "step " << step;
  }
}

TEST(CostModel, JitterIsBoundedAndReproducibleFromTheSeed) {
  Faults f;
  f.jitterPct = 20;
  CostModel a(OpCosts{}, f, 7), b(OpCosts{}, f, 7), other(OpCosts{}, f, 8);
  std::set<int64_t> distinct;
  int differs = 0;
  for (int stage = 0; stage < 4; ++stage) {
    for (int op = 0; op < 50; ++op) {
      const int64_t ns = a.opNs(stage, 1, op, OpKind::F);
      EXPECT_EQ(ns, b.opNs(stage, 1, op, OpKind::F));
      EXPECT_GE(ns, 1'600'000);
      EXPECT_LE(ns, 2'400'000);
      distinct.insert(ns);
      differs += ns != other.opNs(stage, 1, op, OpKind::F);
    }
  }
  EXPECT_GT(distinct.size(), 150u);  // it does vary
  EXPECT_GT(differs, 150);           // and depends on the seed
}

TEST(CostModel, UniformDrawCoversTheInterval) {
  double lo = 1, hi = -1, sum = 0;
  const int n = 10000;
  for (int i = 0; i < n; ++i) {
    const double u = uniformDraw(1, 0, 0, static_cast<uint64_t>(i));
    lo = std::min(lo, u);
    hi = std::max(hi, u);
    sum += u;
  }
  EXPECT_LT(lo, -0.99);
  EXPECT_GT(hi, 0.99);
  EXPECT_NEAR(sum / n, 0.0, 0.03);
}

}  // namespace
}  // namespace bubblescope::engine
