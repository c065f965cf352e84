#pragma once
// A stage with device activity: its compute kernels' launch calls (what its ops are made of), its
// NCCL kernels with the calls they serve, where its calls cut its compute, and the RankOps a rule
// set would give once the launches are cut into ops (op_segments.h, v_pipeline.h). The host-side
// counterpart is host_stage.h.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "analyzer/infer/op_segments.h"
#include "analyzer/recognize/rank_order.h"
#include "analyzer/recognize/recognized.h"
#include "traces/model/trace.h"

namespace bubblescope::analysis {

struct LaunchCall {
  TimeNs start = 0, end = 0;
  traces::ThreadIndex thread = 0;
  uint32_t kernel = 0;  // the kernel it launched (index into the trace's kernels)
};

// Every launch call by correlation id, and the compute kernels' launches that ops are made of.
// A sorted vector, not a hash map: a million launches would be a million allocations, and the
// ids mostly arrive sorted already.
struct Launches {
  std::vector<std::pair<uint32_t, uint32_t>> byCorrelation;  // (correlation, api call row)
  std::vector<LaunchCall> compute;

  // Kernels are looked up in nearly the order they were launched: the search gallops out from
  // where the previous one was found, a step or two instead of twenty. One thread per Launches.
  const uint32_t* row(uint32_t correlation) const {
    if (correlation == 0 || byCorrelation.empty()) return nullptr;
    const std::pair<uint32_t, uint32_t> key{correlation, 0};
    const size_t n = byCorrelation.size();
    size_t lo = 0, hi = n;
    size_t at = std::min(hint_, n - 1);
    if (byCorrelation[at] < key) {
      size_t step = 1;
      lo = at + 1;
      while (lo < n && byCorrelation[std::min(n - 1, at + step)] < key) {
        lo = at + step + 1;
        step *= 2;
      }
      hi = std::min(n, at + step + 1);
    } else {
      size_t step = 1;
      hi = at + 1;
      while (at >= step && !(byCorrelation[at - step] < key)) {
        hi = at - step + 1;
        step *= 2;
      }
      lo = at >= step ? at - step : 0;
    }
    lo = std::min(lo, n);
    hi = std::clamp(hi, lo, n);
    auto it = std::lower_bound(byCorrelation.begin() + static_cast<std::ptrdiff_t>(lo),
                               byCorrelation.begin() + static_cast<std::ptrdiff_t>(hi), key);
    hint_ = static_cast<size_t>(it - byCorrelation.begin());
    return it != byCorrelation.end() && it->first == correlation ? &it->second : nullptr;
  }
  mutable size_t hint_ = 0;
  TimeNs at(const traces::RankTrace& t, uint32_t correlation) const {
    const uint32_t* r = row(correlation);
    return r ? t.apiCalls->start[*r] : kNoLaunch;
  }
};

// The NCCL kernels alone, with their calls and launches, into `ops` (commKernels, commCalls).
void ncclKernelsOf(const traces::RankTrace& t, const std::vector<int8_t>& nccl,
                   const Launches& launches, RankOps& ops);

// Every launch call by correlation id (compute left empty).
Launches launchesOf(const traces::RankTrace& t);

// Fills `out.compute`: the compute kernels' launch calls, the optimizer's left out, sorted.
void computeLaunches(const traces::RankTrace& t, const RankOps& marks,
                     const std::vector<int8_t>& nccl, Launches& out);

// Where the rank's compute is cut: its NCCL calls (`typed`: the matched transfers along the
// pipeline, call row -> what it tells) and the optimizer.
std::vector<Cut> cutsOf(const traces::RankTrace& t, const RankOps& marks,
                        const std::map<int32_t, CutKind>& typed);

// The stage's RankOps from a segmentation of its launches (`comms`: its transfers, when known),
// steps cut with `microbatches` per step when nothing marks them.
RankOps withOps(const traces::RankTrace& t, RankOps&& marks, const Launches& l,
                const std::vector<int8_t>& nccl, const Segmentation& seg, int stage,
                int microbatches, PostedComms comms = {});

}  // namespace bubblescope::analysis
