#include "tests/tracegen/interleaved_order.h"

#include <algorithm>
#include <stdexcept>

namespace bubblescope::tracegen {
namespace {

// The k-th forward (or backward) of the stage: its group of p v ops holds p microbatches of each
// chunk in turn, backwards taking the chunks from the last.
StageOp kth(PassKind pass, int k, int p, int v) {
  const int inGroup = k % (p * v);
  const int chunk = pass == PassKind::F ? inGroup / p : v - 1 - inGroup / p;
  return {pass, (k / (p * v)) * p + k % p, chunk};
}

}  // namespace

int interleavedWarmup(int p, int m, int v, int s) {
  // The last stage's first backward (the last chunk's, of mb 0) follows its first (v - 1) p
  // forwards; a stage further up runs two more per stage between them (one while the forward
  // goes down, one while its gradient comes back).
  return std::min(m * v, (p - s - 1) * 2 + (v - 1) * p);
}

std::vector<StageOp> interleavedOrder(int p, int m, int v, int s) {
  if (m % p != 0) {
    throw std::invalid_argument("tracegen: interleaved 1F1B needs m a multiple of p");
  }
  const int total = m * v, warmup = interleavedWarmup(p, m, v, s);
  std::vector<StageOp> order;
  for (int k = 0; k < warmup; ++k) order.push_back(kth(PassKind::F, k, p, v));
  for (int k = 0; k < total - warmup; ++k) {
    order.push_back(kth(PassKind::F, warmup + k, p, v));
    order.push_back(kth(PassKind::BW, k, p, v));
  }
  for (int k = total - warmup; k < total; ++k) order.push_back(kth(PassKind::BW, k, p, v));
  return order;
}

}  // namespace bubblescope::tracegen
