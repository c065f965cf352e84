#include "analyzer/timeline/step_view.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "reference_engine/schedule/schedule.h"

namespace bubblescope::analysis {
namespace {

// Gradients flow out of B or BW alike: both are the "backward" producer of a B transfer.
int passOf(OpKind k) {
  return k == OpKind::F ? 0 : (k == OpKind::W ? 2 : 1);
}

uint64_t opKey(int step, int pass, int mb, int chunk) {
  return (uint64_t(uint32_t(step)) << 40) ^ (uint64_t(pass) << 36) ^ (uint64_t(uint32_t(mb)) << 8) ^
         uint64_t(uint8_t(chunk));
}

engine::Schedule layoutOf(const PipelineTrace& pl) {
  engine::Schedule s;
  s.p = pl.p;
  s.v = pl.v;
  s.layout = pl.vLayout ? engine::ChunkLayout::V : engine::ChunkLayout::Looped;
  return s;
}

// Lookups shared by every step: ops by (step, pass, mb, chunk) per stage, and each matched
// comm's peer.
struct Index {
  std::vector<std::unordered_map<uint64_t, int>> ops;               // per stage
  std::map<std::pair<int, size_t>, std::pair<int, size_t>> peerOf;  // (stage, comm) -> peer

  explicit Index(const PipelineTrace& pl) : ops(pl.p) {
    for (const auto& st : pl.stages) {
      for (size_t i = 0; i < st.ops.ops.size(); ++i) {
        const auto& o = st.ops.ops[i];
        if (o.step < 0 || o.op.kind == OpKind::W) continue;
        ops[st.stage].emplace(opKey(o.step, passOf(o.op.kind), o.op.mb, o.op.chunk),
                              static_cast<int>(i));
      }
    }
    for (const Transfer& t : pl.transfers) {
      peerOf[{t.fromStage, t.send}] = {t.toStage, t.recv};
      peerOf[{t.toStage, t.recv}] = {t.fromStage, t.send};
    }
  }
};

bool inMarker(const StepMarker& m, const Interval& i) {
  return i.start >= m.start && i.start <= m.end;
}

}  // namespace

std::vector<StepView> buildStepViews(const PipelineTrace& pl) {
  const Index index(pl);
  const engine::Schedule layout = layoutOf(pl);
  const int lastVs = layout.virtualStages() - 1;
  std::vector<StepView> views;
  for (size_t k = 0; k < pl.stepNumbers.size(); ++k) {
    StepView view;
    view.index = static_cast<int>(k);
    view.number = pl.stepNumbers[k];
    view.start = INT64_MAX;
    view.end = INT64_MIN;
    view.stages.resize(pl.p);

    // Ops, and the span over every stage.
    for (const auto& st : pl.stages) {
      auto& ss = view.stages[st.stage];
      ss.stage = st.stage;
      const int stepIdx = pl.stepIndex[st.stage][k];
      const StepMarker& marker = st.ops.steps[stepIdx];
      for (size_t i = 0; i < st.ops.ops.size(); ++i) {
        const auto& o = st.ops.ops[i];
        if (o.step != stepIdx) continue;
        ss.ops.push_back(static_cast<int>(i));
        view.start = std::min(view.start, o.start);
        view.end = std::max(view.end, o.end);
      }
      // Host ranges stand for device work only in traces without kernels: with kernels, a
      // CPU-bound optimizer's range outlasts what it ran on the device.
      if (!st.ops.hasKernels) {
        for (const auto* list : {&st.ops.optimizer, &st.ops.gradSync, &st.ops.otherBusy}) {
          for (const Interval& i : *list) {
            if (inMarker(marker, i)) view.end = std::max(view.end, i.end);
          }
        }
      }
      for (const auto& c : st.ops.comms) {
        if (c.step == stepIdx) view.end = std::max(view.end, c.end);
      }
      // Device work the step's host launched (the optimizer's kernels run after its range ends).
      // Without its launch a kernel's step is a guess from its own time: it does not stretch one.
      for (const DeviceWork& w : st.ops.otherKernels) {
        if (w.step == stepIdx && w.launch != kNoLaunch) view.end = std::max(view.end, w.end);
      }
      for (const CommKernel& w : st.ops.commKernels) {
        if (w.step == stepIdx && w.launch != kNoLaunch) view.end = std::max(view.end, w.end);
      }
    }

    // The step's collectives (gradient sync): transfer starts when the last stage joins.
    std::vector<std::vector<Interval>> syncs(pl.p);
    size_t nSync = SIZE_MAX;
    for (const auto& st : pl.stages) {
      const StepMarker& marker = st.ops.steps[pl.stepIndex[st.stage][k]];
      for (const Interval& i : st.ops.gradSync) {
        if (inMarker(marker, i)) syncs[st.stage].push_back(i);
      }
      nSync = std::min(nSync, syncs[st.stage].size());
    }

    for (const auto& st : pl.stages) {
      auto& ss = view.stages[st.stage];
      const int stepIdx = pl.stepIndex[st.stage][k];
      const StepMarker& marker = st.ops.steps[stepIdx];
      IntervalList compute, comm, other;
      for (int i : ss.ops) {
        const auto& o = st.ops.ops[i];
        if (st.ops.hasKernels && o.kernelEnd > o.kernelBegin) {
          compute.insert(compute.end(), st.ops.computeKernels.begin() + o.kernelBegin,
                         st.ops.computeKernels.begin() + o.kernelEnd);
        } else {
          compute.push_back({o.start, o.end});
        }
      }
      // Communication on the device is the transfer part of each NCCL kernel (the wait before
      // it is idle); labelled transfers and syncs without kernels split the same way by label.
      for (size_t ci = 0; ci < st.ops.comms.size(); ++ci) {
        const auto& c = st.ops.comms[ci];
        if (c.step != stepIdx || c.onDevice) continue;
        TimeNs from = c.start;
        if (auto it = index.peerOf.find({st.stage, ci}); it != index.peerOf.end()) {
          from = std::max(from, pl.stages[it->second.first].ops.comms[it->second.second].start);
        }
        if (from < c.end) comm.push_back({from, c.end});
      }
      for (size_t j = 0; j < syncs[st.stage].size(); ++j) {
        TimeNs joined = syncs[st.stage][j].start;
        if (j < nSync) {
          for (int s = 0; s < pl.p; ++s) joined = std::max(joined, syncs[s][j].start);
        }
        if (joined < syncs[st.stage][j].end) comm.push_back({joined, syncs[st.stage][j].end});
      }
      // Kernels by device time: a receive posted in the step before can wait into this one.
      for (const CommKernel& w : st.ops.commKernels) {
        if (w.end > view.start && w.transferStart < view.end) comm.push_back({w.transferStart, w.end});
      }
      for (const DeviceWork& w : st.ops.otherKernels) {
        if (w.end > view.start && w.start < view.end) other.push_back({w.start, w.end});
      }
      for (const auto* list : {&st.ops.optimizer, &st.ops.otherBusy}) {
        for (const Interval& i : *list) {
          if (inMarker(marker, i) && !st.ops.hasKernels) other.push_back(i);
        }
      }
      ss.compute = clip(unite(std::move(compute)), view.start, view.end);
      ss.comm = subtract(clip(unite(std::move(comm)), view.start, view.end), ss.compute);
      ss.other = subtract(subtract(clip(unite(std::move(other)), view.start, view.end), ss.compute),
                          ss.comm);
      IntervalList host;
      for (const Interval& i : st.ops.hostActivity) {
        if (inMarker(marker, i)) host.push_back(i);
      }
      ss.hostActivity = unite(std::move(host));

      // Inputs: the matched receive's end, else the producer's end.
      TimeNs prevOpEnd = kNoArrival;
      for (int i : ss.ops) {
        const auto& o = st.ops.ops[i];
        TimeNs arrival = kNoArrival, waitStart = kNoArrival, moved = kNoArrival;
        bool onDevice = false;
        int pStage = -1, pOp = -1;
        const int vs = layout.virtualStage(st.stage, o.op.chunk);
        const bool forward = o.op.kind == OpKind::F;
        const bool hasInput = o.op.kind != OpKind::W && (forward ? vs > 0 : vs < lastVs);
        if (hasInput) {
          const int pvs = forward ? vs - 1 : vs + 1;
          pStage = layout.stageOf(pvs);
          const int pStepIdx = pl.stepIndex[pStage][k];
          auto it = index.ops[pStage].find(
              opKey(pStepIdx, forward ? 0 : 1, o.op.mb, layout.chunkOf(pvs)));
          if (it != index.ops[pStage].end()) {
            pOp = it->second;
            arrival = pl.stages[pStage].ops.ops[pOp].end;
          }
          for (size_t ci = 0; ci < st.ops.comms.size(); ++ci) {
            const auto& c = st.ops.comms[ci];
            if (c.step == stepIdx && !c.send && c.mb == o.op.mb && c.chunk == o.op.chunk &&
                (c.pass == OpKind::F) == forward) {
              arrival = c.end;
              waitStart = c.start;
              // NCCL moves data only while both kernels run (a rendezvous); a host-side
              // receive may find the data already there (sent eagerly), so its start says
              // nothing about when the data moved.
              onDevice = c.onDevice;
              if (auto peer = index.peerOf.find({st.stage, ci});
                  onDevice && peer != index.peerOf.end()) {
                const auto& send = pl.stages[peer->second.first].ops.comms[peer->second.second];
                moved = std::min(c.end, std::max(c.start, send.start));
              }
              break;
            }
          }
        }
        // Posted with the previous op's output: its receive started when that op ended (noise
        // of a launch aside), not before.
        constexpr TimeNs kPostSlack = 20'000;
        ss.receiveAfterPrevious.push_back(onDevice && waitStart != kNoArrival &&
                                          prevOpEnd != kNoArrival &&
                                          waitStart + kPostSlack >= prevOpEnd);
        prevOpEnd = o.end;
        ss.arrival.push_back(arrival);
        ss.waitStart.push_back(waitStart);
        ss.moved.push_back(moved);
        ss.producerStage.push_back(pOp >= 0 ? pStage : -1);
        ss.producerOp.push_back(pOp);
      }
    }
    views.push_back(std::move(view));
  }
  return views;
}

std::vector<TimeNs> transferLags(const PipelineTrace& pl, const std::vector<StepView>& steps) {
  std::vector<TimeNs> lags;
  for (const StepView& view : steps) {
    for (const StageStep& ss : view.stages) {
      for (size_t j = 0; j < ss.ops.size(); ++j) {
        if (ss.producerOp[j] < 0 || ss.arrival[j] == kNoArrival) continue;
        const auto& producer = pl.stages[ss.producerStage[j]].ops.ops[ss.producerOp[j]];
        // Only where the receiver was already waiting does the arrival time show the lag.
        if (ss.waitStart[j] != kNoArrival && ss.waitStart[j] <= producer.end &&
            ss.arrival[j] >= producer.end) {
          lags.push_back(ss.arrival[j] - producer.end);
        }
      }
    }
  }
  return lags;
}

}  // namespace bubblescope::analysis
