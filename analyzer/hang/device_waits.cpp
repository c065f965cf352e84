#include "analyzer/hang/device_waits.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

namespace bubblescope::analysis::hang {
namespace {

using traces::RankTrace;
using traces::StreamIndex;

// Every capture window ended: the agent closed the file as the process exited.
bool closedByAgent(const RankTrace& t) {
  const auto& w = t.meta.captureWindows;
  return !w.empty() && std::all_of(w.begin(), w.end(), [](const auto& x) { return x.end != 0; });
}

bool inOpenWindow(const RankTrace& t, TimeNs at) {
  return std::any_of(t.meta.captureWindows.begin(), t.meta.captureWindows.end(),
                     [&](const auto& w) { return w.end == 0 && at >= w.start; });
}

// When the recorder last collected, at least: its alive stamp (the agent's last commit,
// Kineto's "Record Window End"), else the trace's last record.
TimeNs lastCollected(const RankTrace& t) {
  TimeNs last = t.meta.aliveNs;
  for (TimeNs e : t.apiCalls->end) last = std::max(last, e);
  for (TimeNs e : t.ncclCalls->end) last = std::max(last, e);
  for (TimeNs e : t.kernels->end) last = std::max(last, e);
  for (TimeNs e : t.ranges->end) last = std::max(last, e);
  return last;
}

// The highest correlation id of the work each stream completed.
template <class Table>
void noteCompleted(const Table& table, std::unordered_map<StreamIndex, uint32_t>& last) {
  for (size_t i = 0; i < table.size(); ++i) {
    uint32_t& c = last[table.stream[i]];
    c = std::max(c, table.correlation[i]);
  }
}

std::vector<StuckLaunch> stuckOf(const RankTrace& t) {
  const bool imported = t.meta.captureWindows.empty();
  if (t.kernels->size() == 0 || t.ncclCalls->size() == 0 || (!imported && closedByAgent(t))) {
    return {};
  }
  const traces::NcclCalls& nc = t.ncclCalls;
  std::unordered_map<uint64_t, int32_t> rowOf;
  for (size_t i = 0; i < nc.size(); ++i) {
    if (nc.id[i] != 0) rowOf.emplace(nc.id[i], static_cast<int32_t>(i));
  }
  std::map<uint32_t, std::vector<int32_t>> callsOf;  // correlation -> the calls it launched
  for (size_t i = 0; i < t.correlations->size(); ++i) {
    if (t.correlations->externalKind[i] != traces::ExternalKind::NcclCall) continue;
    if (auto row = rowOf.find(t.correlations->externalId[i]); row != rowOf.end()) {
      callsOf[t.correlations->correlation[i]].push_back(row->second);
    }
  }
  if (callsOf.empty()) return {};

  // The NCCL launches whose kernel has a record (a set of the few NCCL launches, not of every
  // kernel: a trace may hold millions).
  std::unordered_set<uint32_t> finished;
  for (uint32_t c : t.kernels->correlation) {
    if (callsOf.count(c) != 0) finished.insert(c);
  }
  std::unordered_map<StreamIndex, uint32_t> lastDone;
  noteCompleted(*t.kernels, lastDone);
  noteCompleted(*t.memcpys, lastDone);
  noteCompleted(*t.memsets, lastDone);
  // The CUPTI stream behind each cudaStream_t NCCL was given, from its calls' finished kernels.
  std::unordered_map<uint64_t, StreamIndex> streamOfHandle;
  for (size_t i = 0; i < t.kernels->size(); ++i) {
    auto calls = callsOf.find(t.kernels->correlation[i]);
    if (calls == callsOf.end()) continue;
    for (int32_t row : calls->second) streamOfHandle[nc.streamHandle[row]] = t.kernels->stream[i];
  }
  std::unordered_map<uint32_t, TimeNs> launchOf;
  for (size_t i = 0; i < t.apiCalls->size(); ++i) {
    const uint32_t c = t.apiCalls->correlation[i];
    if (c == 0 || callsOf.count(c) == 0) continue;
    auto [it, added] = launchOf.try_emplace(c, t.apiCalls->start[i]);
    if (!added) it->second = std::min(it->second, t.apiCalls->start[i]);
  }

  const TimeNs collected = lastCollected(t);
  std::map<std::pair<bool, uint64_t>, StuckLaunch> firstOnStream;  // (stream known, id)
  for (auto& [correlation, calls] : callsOf) {
    if (finished.count(correlation) != 0) continue;
    const auto launch = launchOf.find(correlation);
    if (launch == launchOf.end()) continue;  // no launch: the call never reached the device
    const TimeNs at = launch->second;
    if ((!imported && !inOpenWindow(t, at)) || collected - at < kKernelSettleNs) continue;
    std::sort(calls.begin(), calls.end(),
              [&](int32_t a, int32_t b) { return nc.start[a] < nc.start[b]; });
    const uint64_t handle = nc.streamHandle[calls.front()];
    std::pair<bool, uint64_t> key{false, handle};
    if (auto s = streamOfHandle.find(handle); s != streamOfHandle.end()) {
      if (auto done = lastDone.find(s->second);
          done != lastDone.end() && done->second > correlation) {
        continue;  // later work on its stream completed: so did this kernel
      }
      key = {true, s->second};
    }
    auto [slot, added] = firstOnStream.try_emplace(key);
    if (added || at < slot->second.launch) slot->second = StuckLaunch{calls, at, correlation};
  }
  std::vector<StuckLaunch> out;
  for (auto& [key, s] : firstOnStream) out.push_back(std::move(s));
  std::sort(out.begin(), out.end(),
            [](const StuckLaunch& a, const StuckLaunch& b) { return a.launch < b.launch; });
  return out;
}

}  // namespace

std::vector<std::vector<StuckLaunch>> stuckOnDevice(const traces::Run& run) {
  std::vector<std::vector<StuckLaunch>> out;
  out.reserve(run.ranks.size());
  for (const RankTrace& t : run.ranks) out.push_back(stuckOf(t));
  return out;
}

}  // namespace bubblescope::analysis::hang
