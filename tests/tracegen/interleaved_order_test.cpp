// The generator's interleaved 1F1B order: every op once on every stage, Megatron's warm-up, and a
// run of it where every op waits for what it needs goes through, each forward after its input's
// maker, in the time the paper gives it.
#include "tests/tracegen/interleaved_order.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

#include "tests/tracegen/p2p_order.h"
#include "tests/tracegen/zb_v_order.h"

namespace bubblescope::tracegen {
namespace {

struct Shape {
  int p, m;
};

const Shape kShapes[] = {{2, 2}, {2, 6}, {3, 3}, {3, 9}, {4, 4}, {4, 8}, {4, 16}, {8, 16}};

JobSpec interleaved(int p, int m) {
  JobSpec spec;
  spec.schedule = JobSchedule::Interleaved;
  spec.p = p;
  spec.m = m;
  return spec;
}

TEST(InterleavedOrder, EveryStageRunsEachPassChunkAndMicrobatchOnce) {
  for (const Shape& sh : kShapes) {
    for (int s = 0; s < sh.p; ++s) {
      const std::vector<StageOp> order = interleavedOrder(sh.p, sh.m, 2, s);
      std::set<std::tuple<PassKind, int, int>> seen;
      for (const StageOp& o : order) {
        EXPECT_TRUE(o.pass == PassKind::F || o.pass == PassKind::BW);
        EXPECT_TRUE(seen.insert({o.pass, o.chunk, o.mb}).second)
            << "p=" << sh.p << " m=" << sh.m << " stage " << s << " repeats an op";
        EXPECT_LT(o.mb, sh.m);
        EXPECT_LT(o.chunk, 2);
      }
      EXPECT_EQ(order.size(), static_cast<size_t>(4 * sh.m)) << "p=" << sh.p << " m=" << sh.m;
      EXPECT_EQ(stageOrder(interleaved(sh.p, sh.m), s), order);
    }
  }
}

TEST(InterleavedOrder, NeedsMicrobatchesInWholeRoundsOfP) {
  EXPECT_THROW(interleavedOrder(4, 6, 2, 0), std::invalid_argument);
}

// Megatron's warm-up, (p - s - 1) 2 + (v - 1) p forwards, then the first 1F1B pair's forward and
// the first backward: the last chunk's, of microbatch 0. Forwards go round the chunks p
// microbatches at a time.
TEST(InterleavedOrder, WarmUpIsMegatronsAndForwardsTakeTheChunksInRoundsOfP) {
  const int p = 4, m = 8;
  const int warmups[] = {10, 8, 6, 4};
  for (int s = 0; s < p; ++s) {
    EXPECT_EQ(interleavedWarmup(p, m, 2, s), warmups[s]);
    const std::vector<StageOp> order = interleavedOrder(p, m, 2, s);
    for (int i = 0; i <= warmups[s]; ++i) EXPECT_EQ(order[i].pass, PassKind::F) << s << " " << i;
    EXPECT_EQ(order[warmups[s] + 1], (StageOp{PassKind::BW, 0, 1})) << "stage " << s;
  }
  std::vector<StageOp> forwards;
  for (const StageOp& o : interleavedOrder(p, m, 2, 0)) {
    if (o.pass == PassKind::F) forwards.push_back(o);
  }
  const int chunks[] = {0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1};
  const int mbs[] = {0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 6, 7, 4, 5, 6, 7};
  for (int k = 0; k < 2 * m; ++k) EXPECT_EQ(forwards[k], (StageOp{PassKind::F, mbs[k], chunks[k]}));
  // Too few microbatches for the warm-up: every forward first.
  EXPECT_EQ(interleavedWarmup(4, 4, 2, 0), 8);
}

// Each stage runs its order, an op starting once its stage is free and the op that makes its
// input (on whichever stage: p2p_order.h's inputOf; the loss's backward: its own forward) is done;
// F takes 1, BW 2, transfers nothing. Returns each op's (start, end) by (stage, pass, chunk, mb),
// empty if the orders wait on each other for ever.
using Key = std::tuple<int, PassKind, int, int>;
std::map<Key, std::pair<int, int>> simulate(const JobSpec& spec) {
  std::vector<std::vector<StageOp>> orders;
  for (int s = 0; s < spec.p; ++s) orders.push_back(stageOrder(spec, s));
  std::map<Key, std::pair<int, int>> ran;
  std::vector<size_t> next(spec.p, 0);
  std::vector<int> free(spec.p, 0);
  for (bool progress = true; progress;) {
    progress = false;
    for (int s = 0; s < spec.p; ++s) {
      while (next[s] < orders[s].size()) {
        const StageOp& o = orders[s][next[s]];
        int ready = free[s];
        const PeerOp in = inputOf(spec, s, o);
        const bool loss = o.pass == PassKind::BW && in.stage < 0;
        const Key needs = loss ? Key{s, PassKind::F, o.chunk, o.mb}
                               : Key{in.stage, in.op.pass, in.op.chunk, in.op.mb};
        if (in.stage >= 0 || loss) {
          auto it = ran.find(needs);
          if (it == ran.end()) break;
          ready = std::max(ready, it->second.second);
        }
        free[s] = ready + (o.pass == PassKind::F ? 1 : 2);
        ran[{s, o.pass, o.chunk, o.mb}] = {ready, free[s]};
        ++next[s];
        progress = true;
      }
    }
  }
  for (int s = 0; s < spec.p; ++s) {
    if (next[s] != orders[s].size()) return {};
  }
  return ran;
}

TEST(InterleavedOrder, ARunGoesThroughEachForwardAfterItsInputsMaker) {
  for (const Shape& sh : kShapes) {
    const JobSpec spec = interleaved(sh.p, sh.m);
    const auto ran = simulate(spec);
    ASSERT_EQ(ran.size(), static_cast<size_t>(4 * sh.p * sh.m)) << "p=" << sh.p << " m=" << sh.m;
    for (const auto& [key, span] : ran) {
      const auto [s, pass, chunk, mb] = key;
      const int vs = virtualStage(spec, s, chunk);
      if (pass == PassKind::F && vs > 0) {
        // The virtual stage before: the same stage's chunk before, one stage up (the loop's
        // wrap: stage p - 1's chunk 0 feeds stage 0's chunk 1).
        const int from = stageOfVirtual(spec, vs - 1), fromChunk = chunkOfVirtual(spec, vs - 1);
        EXPECT_EQ(from, (s + sh.p - 1) % sh.p);
        EXPECT_GE(span.first, ran.at({from, PassKind::F, fromChunk, mb}).second)
            << "p=" << sh.p << " m=" << sh.m << " stage " << s << " F" << mb << " chunk " << chunk;
      }
      if (pass == PassKind::BW) {
        EXPECT_GE(span.first, ran.at({s, PassKind::F, chunk, mb}).second);
      }
    }
  }
}

// With F 1 and BW 2 per chunk (a whole stage's 2 and 4), the step is the stage's work and the
// bubble the paper gives interleaving: (p - 1)(t_f + t_b) / v.
TEST(InterleavedOrder, BubbleMatchesThePapersFormula) {
  for (const Shape& sh : {Shape{2, 4}, Shape{4, 8}, Shape{4, 16}, Shape{8, 16}}) {
    int span = 0;
    for (const auto& [key, at] : simulate(interleaved(sh.p, sh.m)))
      span = std::max(span, at.second);
    EXPECT_EQ(span, sh.m * 2 * 3 + (sh.p - 1) * 6 / 2) << "p=" << sh.p << " m=" << sh.m;
  }
}

}  // namespace
}  // namespace bubblescope::tracegen
