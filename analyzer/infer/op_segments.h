#pragma once
// Pipeline ops of one stage read off where its compute launches fall between its point-to-point
// calls (analysis.md §1b): compute that a receive from the previous stage starts, or that ends in
// a send to the next, is a forward; compute that a receive from the next stage starts, or that
// ends in a send to the previous, a backward. Where one stretch holds both (stage 0 runs a
// backward then the next forward with no call between; the last stage a forward then its
// backward), it is split by how many kernels one op of that kind launches elsewhere. Backwards
// are full ones (BW): nothing in the traffic tells the input gradient from the weight gradient.
// Pure.
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "reference_engine/schedule/op.h"
#include "traces/model/time.h"

namespace bubblescope::analysis {

// What a host call at a given time tells about the compute around it.
enum class CutKind : uint8_t {
  ActIn,    // receive from the previous stage
  ActOut,   // send to the next stage
  GradIn,   // receive from the next stage
  GradOut,  // send to the previous stage
  Other,    // a collective, an unmatched transfer, the optimizer, a step boundary
};

// A call that sends (towards either neighbour), one that receives.
inline bool isSend(CutKind k) {
  return k == CutKind::ActOut || k == CutKind::GradOut;
}
inline bool isReceive(CutKind k) {
  return k == CutKind::ActIn || k == CutKind::GradIn;
}

struct Cut {
  TimeNs at = 0;
  CutKind kind = CutKind::Other;
};

// The calls posted together between two runs of compute.
struct CallGroup {
  bool has[5] = {false, false, false, false, false};
  bool operator[](CutKind k) const { return has[static_cast<int>(k)]; }
};

// What a run between two groups of calls holds, in order: the kind its opening call gives first,
// the kind its closing call gives second (when they differ); nothing when no transfer explains it.
struct RunKinds {
  std::optional<engine::OpKind> first, second;
};
RunKinds kindsBetween(const CallGroup* opening, const CallGroup* closing);

// One inferred op: launches [begin, end) of the sorted launch times given.
struct SegmentOp {
  engine::OpKind kind = engine::OpKind::F;
  size_t begin = 0, end = 0;
  int chunk = 0;  // a V's (v_pipeline.h); a chain has one
  int mb = -1;    // a V's, from its schedule; else counted in order
};

struct Segmentation {
  std::vector<SegmentOp> ops;
  int stretches = 0;      // runs of launches between calls
  int unclassified = 0;   // runs no transfer explains (left as other device work)
  int splits = 0;         // runs holding two ops
  int splitsGuessed = 0;  // ... split without a count learned on this stage
  // Kernels one op launches (median over runs holding one op), F and B; 0 = none seen.
  std::array<size_t, 2> kernelsPerOp{};
};

// `launches`: when each compute kernel was launched, sorted. `cuts` in any order. `fallback`:
// kernels per F and B to split with when this stage has no run of one op (0 = unknown: halves).
Segmentation segmentOps(const std::vector<TimeNs>& launches, std::vector<Cut> cuts,
                        std::array<size_t, 2> fallback);

}  // namespace bubblescope::analysis
