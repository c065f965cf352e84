#include "tests/tracegen/zb_v_order.h"

#include <algorithm>

#include "tests/tracegen/interleaved_order.h"

namespace bubblescope::tracegen {
namespace {

// Hands out microbatches in order per (pass, chunk): the schedule is a sequence of "the next F
// of chunk 0", "the next B of chunk 1", ...
class Emitter {
 public:
  void next(PassKind pass, int chunk) {
    int& mb = next_[index(pass)][chunk];
    ops.push_back({pass, mb++, chunk});
  }
  int issued(PassKind pass, int chunk) const { return next_[index(pass)][chunk]; }

  std::vector<StageOp> ops;

 private:
  static int index(PassKind pass) { return pass == PassKind::F ? 0 : pass == PassKind::B ? 1 : 2; }
  int next_[3][2] = {};
};

}  // namespace

std::vector<StageOp> zbVOrder(int p, int m, int s) {
  const int n = std::max(m, 2 * p - 1);
  Emitter e;
  constexpr PassKind F = PassKind::F, B = PassKind::B, W = PassKind::W;
  // Warm-up. Down the V: stage s is 2(p - s) - 1 chunk-0 forwards from the turn...
  for (int i = 0; i < 2 * (p - s) - 1; ++i) e.next(F, 0);
  // ...then chunk 1's forwards come back up, one between each further chunk-0 forward...
  for (int i = 0; i < s; ++i) {
    e.next(F, 1);
    e.next(F, 0);
  }
  // ...and chunk 1's first backwards start (stage s is p - s virtual stages from the loss).
  for (int i = 0; i < p - s; ++i) {
    e.next(F, 1);
    e.next(B, 1);
    e.next(W, 1);
  }
  // Steady state: F B W on chunk 0, then on chunk 1, until every forward is issued.
  while (e.issued(F, 1) < n) {
    if (e.issued(F, 0) < n) e.next(F, 0);
    e.next(B, 0);
    e.next(W, 0);
    e.next(F, 1);
    e.next(B, 1);
    e.next(W, 1);
  }
  // Cool-down: the backwards left, chunk 1's alternating with chunk 0's while both have some;
  // W waits for the drain, except that chunk 0's last Bs each take one W of chunk 0 along.
  int w0 = e.issued(W, 0), w1 = e.issued(W, 1);
  while (e.issued(B, 1) < n) {
    e.next(B, 0);
    e.next(B, 1);
  }
  while (e.issued(B, 0) < n) {
    e.next(B, 0);
    e.ops.push_back({W, w0++, 0});
  }
  for (; w1 < n; ++w1) e.ops.push_back({W, w1, 1});
  for (; w0 < n; ++w0) e.ops.push_back({W, w0, 0});
  std::vector<StageOp> out;
  for (const StageOp& op : e.ops) {
    if (op.mb < m) out.push_back(op);
  }
  return out;
}

std::vector<StageOp> oneF1BOrder(int p, int m, int s) {
  std::vector<StageOp> order;
  const int warmup = std::min(p - s - 1, m);
  int f = 0, b = 0;
  for (; f < warmup; ++f) order.push_back({PassKind::F, f, 0});
  while (b < m) {
    if (f < m) order.push_back({PassKind::F, f++, 0});
    order.push_back({PassKind::BW, b++, 0});
  }
  return order;
}

std::vector<StageOp> stageOrder(const JobSpec& spec, int s) {
  switch (spec.schedule) {
    case JobSchedule::ZbV:
      return zbVOrder(spec.p, spec.m, s);
    case JobSchedule::Interleaved:
      return interleavedOrder(spec.p, spec.m, chunksPerStage(spec), s);
    case JobSchedule::OneF1B:
      break;
  }
  return oneF1BOrder(spec.p, spec.m, s);
}

}  // namespace bubblescope::tracegen
