#include "tests/tracegen/megatron_truth.h"

namespace bubblescope::tracegen {
namespace {

double meanStep(const MegatronTimeline& tl) {
  double sum = 0;
  for (size_t k = 0; k < tl.stepStart.size(); ++k) {
    sum += static_cast<double>(tl.stepEnd[k] - tl.stepStart[k]);
  }
  return tl.stepStart.empty() ? 0 : sum / static_cast<double>(tl.stepStart.size());
}

}  // namespace

MegatronTruth megatronTruth(const MegatronTimeline& tl) {
  MegatronTruth t;
  TimeNs sum[2] = {0, 0};
  int64_t n[2] = {0, 0};
  for (const GroupOp& op : tl.ops) {
    const int k = op.kind == 'F' ? 0 : 1;
    sum[k] += op.end - op.start;
    ++n[k];
  }
  t.meanF = n[0] ? sum[0] / n[0] : 0;
  t.meanB = n[1] ? sum[1] / n[1] : 0;
  t.measuredStep = meanStep(tl);
  t.idealStep = meanStep(executeMegatronIdeal(tl.job, t.meanF, t.meanB));
  t.slowdown = t.idealStep > 0 ? t.measuredStep / t.idealStep : 1;
  return t;
}

}  // namespace bubblescope::tracegen
