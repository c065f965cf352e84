// When a ZB-V rank posts its sends and receives: both sides of every pair post its messages in one
// order (NCCL pairs them in order), each receive before the op that needs it and each send after
// the op that makes it.
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

TEST(P2pOrder, BothSidesOfAPairPostItsMessagesInOneOrder) {
  for (auto [p, m] :
       {std::pair{2, 3}, std::pair{3, 5}, std::pair{4, 8}, std::pair{4, 3}, std::pair{6, 20}}) {
    const JobSpec spec = zbV(p, m);
    // (from, to) -> the messages in the order the sender posts them, and the receiver.
    std::map<std::pair<int, int>, std::vector<StageOp>> sent, received;
    for (int r = 0; r < p; ++r) {
      for (const RankAction& a : zbVProgram(spec, r)) {
        if (a.kind == RankAction::Send) sent[{r, a.peer}].push_back(a.op);
        if (a.kind == RankAction::Recv) received[{a.peer, r}].push_back(a.op);
      }
    }
    EXPECT_EQ(sent, received) << "p=" << p << " m=" << m;
    // Each microbatch crosses each link four times (F and B, down and up the V).
    size_t messages = 0;
    for (const auto& [link, list] : sent) messages += list.size();
    EXPECT_EQ(messages, static_cast<size_t>(4 * m * (p - 1))) << "p=" << p << " m=" << m;
  }
}

TEST(P2pOrder, ReceivesComeBeforeTheirOpAndSendsAfterIt) {
  const JobSpec spec = zbV(4, 8);
  for (int r = 0; r < spec.p; ++r) {
    const std::vector<RankAction> program = zbVProgram(spec, r);
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

}  // namespace
}  // namespace bubblescope::tracegen
