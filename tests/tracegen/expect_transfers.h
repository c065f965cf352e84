#pragma once
// The check the execution model's tests share: every receive's kernel waits until its sender's
// has started, then both end together (NCCL's rendezvous), on every link of the job.
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/tracegen/execution.h"
#include "tests/tracegen/p2p_order.h"

namespace bubblescope::tracegen {

// Checks each receive against the send of the same step, pass and microbatch from the chunk that
// makes its input (p2p_order.h); returns how many pairs it found.
inline int expectReceivesMeetTheirSends(const JobTimeline& job) {
  int matched = 0;
  for (const RankTimeline& tl : job.ranks) {
    for (const NcclCall& c : tl.calls) {
      if (c.kind != CallKind::Recv) continue;
      const Kernel& mine = tl.kernels[c.kernel];
      const PeerOp from = inputOf(job.spec, tl.rank, {c.pass, c.mb, c.chunk});
      for (const NcclCall& o : job.ranks[c.peer].calls) {
        if (o.kind == CallKind::Send && o.peer == tl.rank && o.step == c.step && o.pass == c.pass &&
            o.mb == c.mb && o.chunk == from.op.chunk) {
          const Kernel& theirs = job.ranks[c.peer].kernels[o.kernel];
          EXPECT_EQ(mine.transferStart, std::max(mine.start, theirs.start));
          EXPECT_EQ(mine.end, theirs.end);
          ++matched;
        }
      }
    }
  }
  return matched;
}

}  // namespace bubblescope::tracegen
