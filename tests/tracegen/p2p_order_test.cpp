// When a ZB-V or interleaved 1F1B rank posts its sends and receives: both sides of every pair post
// its messages in one order (NCCL pairs them in order), each receive before the op that needs it
// and each send after the op that makes it.
#include "tests/tracegen/p2p_order.h"

#include <gtest/gtest.h>

#include <map>
#include <tuple>
#include <utility>

namespace bubblescope::tracegen {
namespace {

JobSpec zbV(int p, int m) {
  JobSpec spec;
  spec.schedule = JobSchedule::ZbV;
  spec.p = p;
  spec.m = m;
  return spec;
}

JobSpec interleaved(int p, int m) {
  JobSpec spec;
  spec.schedule = JobSchedule::Interleaved;
  spec.p = p;
  spec.m = m;
  return spec;
}

// (from, to) -> the messages in the order the sender posts them and the order the receiver does,
// each named by the op that makes it.
using PairOrders = std::map<std::pair<int, int>, std::vector<StageOp>>;
std::pair<PairOrders, PairOrders> postingOrders(const JobSpec& spec) {
  PairOrders sent, received;
  for (int r = 0; r < spec.p; ++r) {
    for (const RankAction& a : multiChunkProgram(spec, r)) {
      if (a.kind == RankAction::Send) sent[{r, a.peer}].push_back(a.op);
      if (a.kind == RankAction::Recv) {
        const PeerOp maker = inputOf(spec, r, a.op);
        EXPECT_EQ(maker.stage, a.peer);
        received[{a.peer, r}].push_back(maker.op);
      }
    }
  }
  return {sent, received};
}

size_t count(const PairOrders& orders) {
  size_t n = 0;
  for (const auto& [link, list] : orders) n += list.size();
  return n;
}

TEST(P2pOrder, BothSidesOfAPairPostItsMessagesInOneOrder) {
  for (auto [p, m] :
       {std::pair{2, 3}, std::pair{3, 5}, std::pair{4, 8}, std::pair{4, 3}, std::pair{6, 20}}) {
    const auto [sent, received] = postingOrders(zbV(p, m));
    EXPECT_EQ(sent, received) << "p=" << p << " m=" << m;
    // Each microbatch crosses each link four times (F and B, down and up the V).
    EXPECT_EQ(count(sent), static_cast<size_t>(4 * m * (p - 1))) << "p=" << p << " m=" << m;
  }
}

// The loop's wrap (stage p - 1's chunk 0 to stage 0's chunk 1) names the message by a different
// chunk on each side; the order is the same.
TEST(P2pOrder, BothSidesOfAnInterleavedPairPostItsMessagesInOneOrder) {
  for (auto [p, m] : {std::pair{2, 2}, std::pair{2, 4}, std::pair{3, 6}, std::pair{4, 8},
                      std::pair{4, 4}, std::pair{4, 16}, std::pair{6, 12}}) {
    const auto [sent, received] = postingOrders(interleaved(p, m));
    EXPECT_EQ(sent, received) << "p=" << p << " m=" << m;
    // F and BW of every microbatch cross each of the 2p - 1 boundaries between virtual stages.
    EXPECT_EQ(count(sent), static_cast<size_t>(2 * m * (2 * p - 1))) << "p=" << p << " m=" << m;
    if (p == 2) continue;  // the wrap's link is also the chain's
    EXPECT_EQ(sent.at({p - 1, 0}).front(), (StageOp{PassKind::F, 0, 0}));
    EXPECT_EQ(sent.at({0, p - 1}).front(), (StageOp{PassKind::BW, 0, 1}));
  }
}

TEST(P2pOrder, ReceivesComeBeforeTheirOpAndSendsAfterIt) {
  for (const JobSpec& spec : {zbV(4, 8), interleaved(4, 8)}) {
    for (int r = 0; r < spec.p; ++r) {
      const std::vector<RankAction> program = multiChunkProgram(spec, r);
      std::map<std::tuple<PassKind, int, int>, size_t> ranAt;
      for (size_t i = 0; i < program.size(); ++i) {
        const StageOp& o = program[i].op;
        if (program[i].kind == RankAction::Run) ranAt[{o.pass, o.chunk, o.mb}] = i;
      }
      for (size_t i = 0; i < program.size(); ++i) {
        const RankAction& a = program[i];
        if (a.kind == RankAction::Run) continue;
        const size_t op = ranAt.at({a.op.pass, a.op.chunk, a.op.mb});
        if (a.kind == RankAction::Recv) {
          EXPECT_LT(i, op) << "stage " << r;
        } else {
          EXPECT_GT(i, op) << "stage " << r;
        }
      }
    }
  }
}

}  // namespace
}  // namespace bubblescope::tracegen
