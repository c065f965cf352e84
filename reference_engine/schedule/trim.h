#pragma once
// Cutting a generated pattern back to fewer microbatches, for generators whose hand-crafted
// pattern is laid out for a minimum number of microbatches (ZB-H2, ZB-V: 2p - 1).
//
// Laying the whole pattern out and then dropping ops would cost p x 2p ops for p stages
// whatever m is (10,000 stages and m = 2: 10^9 ops, issue 28). So the pattern is walked, not
// stored: ops of microbatches >= m are never kept, and a loop whose rounds each advance its
// microbatch counters by one runs at most m rounds (past m every counter it moves is >= m, so
// the rest would keep nothing) and moves the counters by the rounds it skipped.
#include <algorithm>
#include <initializer_list>
#include <vector>

#include "reference_engine/schedule/schedule.h"

namespace bubblescope::engine {

// One stage's ops of a pattern cut back to m microbatches. Dropping ops never blocks a stage,
// and no op of a kept microbatch depends on a dropped one: the order stays deadlock-free.
class CutStage {
 public:
  CutStage(std::vector<Op>& ops, int m) : ops_(ops), m_(m) {}
  void push(OpKind kind, int mb, int chunk) {
    if (mb < m_) ops_.push_back({kind, mb, chunk});
  }
  // The rounds of a k-round loop that can keep an op.
  int rounds(int k) const { return std::min(k, m_); }
  // Moves counters past the rounds a loop of k rounds skipped.
  void skip(int k, std::initializer_list<int*> counters) const {
    const int skipped = k - rounds(k);
    if (skipped > 0) {
      for (int* c : counters) *c += skipped;
    }
  }
  // Every counter at m or more: nothing further can be kept.
  bool done(std::initializer_list<int> counters) const {
    return std::min(counters) >= m_;
  }
  int m() const { return m_; }

 private:
  std::vector<Op>& ops_;
  int m_;
};

}  // namespace bubblescope::engine
