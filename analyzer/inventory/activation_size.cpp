#include "analyzer/inventory/activation_size.h"

#include <algorithm>
#include <cmath>

#include "analyzer/inventory/device_memory.h"
#include "analyzer/result/stats.h"

namespace bubblescope::analysis {
namespace {

// Bytes per microbatch on one stage, or why it cannot be told (`why` set, 0 returned).
int64_t perMicrobatch(const traces::Run& run, const StageTrace& st, const PipelineResult& result,
                      double held, std::string& why) {
  const std::string stage = "stage " + std::to_string(st.stage);
  if (st.ranks.empty() || st.ranks.front() >= run.ranks.size()) {
    why = "no trace of " + stage;
    return 0;
  }
  const traces::RankTrace& rank = run.ranks[st.ranks.front()];
  if (rank.memory.size() == 0) {
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
    TimeNs first = INT64_MAX, last = INT64_MIN;
    for (const OpRecord& o : result.ops) {
      if (o.stage != st.stage || o.step != static_cast<int>(k)) continue;
      first = std::min(first, o.start);
      last = std::max(last, o.end);
    }
    if (first > last) continue;
    const int64_t most = live.mostUsed(first, last);
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
  for (const StageTrace& st : trace.stages) {
    const double h = held[static_cast<size_t>(st.stage)];
    if (h <= 0) {
      size.unknown = "stage " + std::to_string(st.stage) + " holds no activations";
      return;
    }
    bytes[static_cast<size_t>(st.stage)] = perMicrobatch(run, st, result, h, size.unknown);
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
