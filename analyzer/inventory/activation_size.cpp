#include "analyzer/inventory/activation_size.h"

#include <algorithm>
#include <cmath>

#include "analyzer/inventory/device_memory.h"
#include "analyzer/result/stats.h"

namespace bubblescope::analysis {
namespace {

// Per stage and step, the first op's start and the last op's end (empty when it ran none).
using OpWindows = std::vector<std::vector<Interval>>;

OpWindows opWindows(const PipelineResult& result, size_t stages) {
  OpWindows w(stages, std::vector<Interval>(result.steps.size(), {INT64_MAX, INT64_MIN}));
  for (const OpRecord& o : result.ops) {
    if (o.stage < 0 || static_cast<size_t>(o.stage) >= stages || o.step < 0 ||
        static_cast<size_t>(o.step) >= result.steps.size()) {
      continue;
    }
    Interval& in = w[static_cast<size_t>(o.stage)][static_cast<size_t>(o.step)];
    in.start = std::min(in.start, o.start);
    in.end = std::max(in.end, o.end);
  }
  return w;
}

// Bytes per microbatch on one stage, or why it cannot be told (`why` set, 0 returned).
int64_t perMicrobatch(const traces::Run& run, const StageTrace& st, const PipelineResult& result,
                      const std::vector<Interval>& windows, double held, std::string& why) {
  const std::string stage = "stage " + std::to_string(st.stage);
  if (st.ranks.empty() || st.ranks.front() >= run.ranks.size()) {
    why = "no trace of " + stage;
    return 0;
  }
  const traces::RankTrace& rank = run.ranks[st.ranks.front()];
  if (rank.memory->size() == 0) {
    why = "no memory records";
    return 0;
  }
  const DeviceMemorySeries live = liveTensorsOf(rank, st.clockOffset);
  if (live.basis == MemoryBasis::NotRecorded) {
    why = "the trace records the allocator's reserve, not the bytes in live tensors";
    return 0;
  }
  std::vector<int64_t> perStep;
  for (size_t k = 0; k < result.steps.size(); ++k) {
    const Interval& ops = windows[k];
    if (ops.start > ops.end) continue;
    const int64_t most = live.mostUsed(ops.start, ops.end);
    const int64_t least = live.leastUsed(result.steps[k].start, result.steps[k].end);
    if (most == traces::kBytesUnknown || least == traces::kBytesUnknown || most <= least) continue;
    perStep.push_back(static_cast<int64_t>(std::llround(static_cast<double>(most - least) / held)));
  }
  if (perStep.empty()) {
    why = "the live-tensor samples of " + stage + " rise by nothing while it runs its ops";
    return 0;
  }
  return median(perStep);
}

}  // namespace

void attachActivationSize(const traces::Run& run, const PipelineTrace& trace,
                          PipelineResult& result) {
  ActivationSize& size = result.activationSize;
  size = {};
  // The measured row holds what the measured order does; without it there is nothing to scale.
  if (result.whatIf.empty() || result.whatIf.front().activations.size() != trace.stages.size()) {
    size.unknown = "no what-if to size";
    return;
  }
  const std::vector<double>& held = result.whatIf.front().activations;
  std::vector<int64_t> bytes(trace.stages.size(), 0);
  const OpWindows windows = opWindows(result, trace.stages.size());
  for (const StageTrace& st : trace.stages) {
    const double h = held[static_cast<size_t>(st.stage)];
    if (h <= 0) {
      size.unknown = "stage " + std::to_string(st.stage) + " holds no activations";
      return;
    }
    bytes[static_cast<size_t>(st.stage)] =
        perMicrobatch(run, st, result, windows[static_cast<size_t>(st.stage)], h, size.unknown);
    if (!size.unknown.empty()) return;
  }
  size.perMicrobatch = std::move(bytes);
  for (WhatIf& w : result.whatIf) {
    if (w.activations.size() != size.perMicrobatch.size()) continue;
    w.activationBytes.resize(w.activations.size());
    for (size_t s = 0; s < w.activations.size(); ++s) {
      w.activationBytes[s] = static_cast<int64_t>(
          std::llround(w.activations[s] * static_cast<double>(size.perMicrobatch[s])));
    }
  }
}

}  // namespace bubblescope::analysis
