// The generator's ZB-V order: every op once on every stage, and the same schedule the reference
// engine calls ZB-V (the two are written apart; this guards that they describe one schedule).
#include "tests/tracegen/zb_v_order.h"

#include <gtest/gtest.h>

#include <set>
#include <tuple>

#include "reference_engine/schedule/schedule.h"

namespace bubblescope::tracegen {
namespace {

struct Shape {
  int p, m;
};

// m = 2p - 1 is the least the pattern needs; fewer is cut back from it.
const Shape kShapes[] = {{2, 3},  {2, 8},  {3, 5},  {3, 9}, {4, 7}, {4, 8},
                         {4, 12}, {5, 16}, {8, 15}, {4, 2}, {4, 5}, {3, 1}};

TEST(ZbVOrder, EveryStageRunsEachPassChunkAndMicrobatchOnce) {
  for (const Shape& sh : kShapes) {
    for (int s = 0; s < sh.p; ++s) {
      const std::vector<StageOp> order = zbVOrder(sh.p, sh.m, s);
      std::set<std::tuple<PassKind, int, int>> seen;
      for (const StageOp& o : order) {
        EXPECT_TRUE(seen.insert({o.pass, o.chunk, o.mb}).second)
            << "p=" << sh.p << " m=" << sh.m << " stage " << s << " repeats an op";
        EXPECT_LT(o.mb, sh.m);
      }
      EXPECT_EQ(order.size(), static_cast<size_t>(6 * sh.m)) << "p=" << sh.p << " m=" << sh.m;
    }
  }
}

// On its own stage an op comes after what it needs there: B after its F, W after its B, and at
// the V's turn (the last stage) chunk 1's F after chunk 0's, chunk 0's B after chunk 1's.
TEST(ZbVOrder, EachOpFollowsWhatItNeedsOnItsOwnStage) {
  for (const Shape& sh : kShapes) {
    for (int s = 0; s < sh.p; ++s) {
      const std::vector<StageOp> order = zbVOrder(sh.p, sh.m, s);
      auto at = [&](PassKind pass, int chunk, int mb) {
        for (size_t i = 0; i < order.size(); ++i) {
          if (order[i] == StageOp{pass, mb, chunk}) return static_cast<int>(i);
        }
        return -1;
      };
      for (int mb = 0; mb < sh.m; ++mb) {
        for (int c = 0; c < 2; ++c) {
          EXPECT_LT(at(PassKind::F, c, mb), at(PassKind::B, c, mb));
          EXPECT_LT(at(PassKind::B, c, mb), at(PassKind::W, c, mb));
        }
        if (s == sh.p - 1) {
          EXPECT_LT(at(PassKind::F, 0, mb), at(PassKind::F, 1, mb));
          EXPECT_LT(at(PassKind::B, 1, mb), at(PassKind::B, 0, mb));
        }
      }
    }
  }
}

// The paper's warm-up on stage s: 2(p - s) - 1 forwards of chunk 0, s pairs (F1, F0), then
// p - s triples (F1, B1, W1).
TEST(ZbVOrder, WarmUpIsThePapersShape) {
  const int p = 4, m = 8;
  for (int s = 0; s < p; ++s) {
    const std::vector<StageOp> order = zbVOrder(p, m, s);
    size_t i = 0;
    for (int k = 0; k < 2 * (p - s) - 1; ++k, ++i) {
      EXPECT_EQ(order[i], (StageOp{PassKind::F, k, 0})) << "stage " << s << " op " << i;
    }
    for (int k = 0; k < s; ++k, i += 2) {
      EXPECT_EQ(order[i], (StageOp{PassKind::F, k, 1})) << "stage " << s << " op " << i;
      EXPECT_EQ(order[i + 1], (StageOp{PassKind::F, 2 * (p - s) - 1 + k, 0}))
          << "stage " << s << " op " << i + 1;
    }
    for (int k = 0; k < p - s; ++k, i += 3) {
      EXPECT_EQ(order[i], (StageOp{PassKind::F, s + k, 1})) << "stage " << s << " op " << i;
      EXPECT_EQ(order[i + 1], (StageOp{PassKind::B, k, 1})) << "stage " << s << " op " << i + 1;
      EXPECT_EQ(order[i + 2], (StageOp{PassKind::W, k, 1})) << "stage " << s << " op " << i + 2;
    }
  }
}

TEST(ZbVOrder, EqualsTheReferenceEnginesZbV) {
  for (const Shape& sh : kShapes) {
    const engine::Schedule want = engine::Schedule::zbV(sh.p, sh.m);
    ASSERT_EQ(want.stages.size(), static_cast<size_t>(sh.p));
    for (int s = 0; s < sh.p; ++s) {
      std::vector<engine::Op> got;
      for (const StageOp& o : zbVOrder(sh.p, sh.m, s)) {
        const engine::OpKind kind = o.pass == PassKind::F   ? engine::OpKind::F
                                    : o.pass == PassKind::B ? engine::OpKind::B
                                                            : engine::OpKind::W;
        got.push_back({kind, o.mb, o.chunk});
      }
      EXPECT_EQ(got, want.stages[s]) << "p=" << sh.p << " m=" << sh.m << " stage " << s;
    }
  }
}

}  // namespace
}  // namespace bubblescope::tracegen
