#pragma once
// Pipeline ops of a stage that ran no device work (a CPU job: gloo-like transfers, the reference
// engine's sleep compute), read off its host time: what the thread that posts the stage's
// point-to-point calls did between one call and the next is the stage's compute, classified by
// the calls around it exactly as launches are (op_segments.h). Where one stretch holds a forward
// and a backward it is split by how long one op of each kind takes on this stage, else by the
// proportions of a neighbouring stage, else in half. A stretch longer than its op(s) take here,
// by what a named range at its start or end covers (a data loader, say), holds host work that is
// not the op; a named range inside a split stretch that covers the excess is where it splits.
// Named ranges in stretches of the usual length are the op's own (a CPU job's library calls). A
// stretch that no transfer opens (it follows a collective: the optimizer runs after the gradient
// sync, then the first forward) ends with the op, as long as one op of its kind takes on this
// stage; what comes before is other host work. Pure.
#include <array>
#include <vector>

#include "analyzer/infer/op_segments.h"
#include "traces/model/time.h"

namespace bubblescope::analysis {

// One call on the posting thread: its host span and what it tells.
struct HostCall {
  TimeNs start = 0, end = 0;
  CutKind kind = CutKind::Other;
};

struct HostOp {
  engine::OpKind kind = engine::OpKind::F;
  TimeNs start = 0, end = 0;
  int chunk = 0;  // a V's (v_pipeline.h); a chain has one
  int mb = -1;    // a V's, from its schedule; else counted in order
};

struct HostSegmentation {
  std::vector<HostOp> ops;  // in time order
  // Host work between calls that is no op: stretches no transfer explains, and what a stretch
  // that a collective opened holds before its op (the optimizer after the gradient sync).
  std::vector<Interval> other;
  int stretches = 0;      // stretches of host time between calls, longer than the call gap
  int unclassified = 0;   // stretches no transfer explains
  int splits = 0;         // stretches holding a forward and a backward
  int splitsGuessed = 0;  // ... split without a duration learned on this stage
  // How long one op takes (median over stretches holding one op), F and B; 0 = none seen.
  std::array<TimeNs, 2> nsPerOp{};
};

// `calls` in any order; `named`: host ranges of the thread other than the calls (sorted or not).
// Calls less than `gap` apart belong together (a receive posted right after a send): the time
// between them is no op. `fallback`: ns per F and B of a neighbouring stage, for the proportions
// of a split this stage cannot learn (0 = unknown: halves).
HostSegmentation segmentHostTime(std::vector<HostCall> calls, std::vector<Interval> named,
                                 std::array<TimeNs, 2> fallback, TimeNs gap);

}  // namespace bubblescope::analysis
