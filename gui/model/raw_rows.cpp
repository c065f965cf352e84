#include "gui/model/raw_rows.h"

#include <algorithm>
#include <cassert>
#include <string>

namespace bubblescope::gui {
namespace {

std::string rankName(const traces::RankTrace& t, int rankIndex) {
  return "rank " + std::to_string(t.meta.rank >= 0 ? t.meta.rank : rankIndex);
}

std::string threadName(const traces::RankTrace& t, traces::ThreadIndex i) {
  if (i < t.threads.size()) {
    const auto name = t.strings.at(t.threads[i].name);
    if (!name.empty()) return std::string(name);
    return "thread " + std::to_string(t.threads[i].tid);
  }
  return "thread #" + std::to_string(i);
}

std::string streamName(const traces::RankTrace& t, traces::StreamIndex i) {
  const traces::Stream& s = t.streams[i];
  std::string out = "GPU " + std::to_string(s.device) + " stream " + std::to_string(s.streamId);
  const auto name = t.strings.at(s.name);
  if (!name.empty()) out += " (" + std::string(name) + ")";
  return out;
}

// Adds the table's events to the per-key span lists.
template <class Key, class Make>
void collect(size_t n, const std::vector<TimeNs>& start, const std::vector<TimeNs>& end,
             const Key& keyOf, TimeNs offset, std::vector<std::vector<Span>>& byKey,
             const Make& item) {
  for (size_t i = 0; i < n; ++i) {
    const size_t key = keyOf(i);
    if (key >= byKey.size()) continue;
    byKey[key].push_back({start[i] + offset, end[i] + offset, item(i)});
  }
}

}  // namespace

std::vector<Row> rawRows(const traces::RankTrace& t, int rankIndex, TimeNs offset) {
  const std::string rank = rankName(t, rankIndex);
  std::vector<Row> rows;
  auto add = [&](RowKind kind, std::string label, std::vector<Span>&& spans) {
    if (spans.empty()) return;
    Row r;
    r.kind = kind;
    r.label = std::move(label);
    r.rank = rankIndex;
    r.lanes = packLanes(std::move(spans));
    rows.push_back(std::move(r));
  };

  // GPU streams.
  assert(t.kernels->size() < (size_t{1} << kStreamIndexBits));
  std::vector<std::vector<Span>> streams(t.streams.size());
  collect(
      t.kernels->size(), t.kernels->start, t.kernels->end,
      [&](size_t i) { return t.kernels->stream[i]; }, offset, streams,
      [](size_t i) { return streamItem(StreamTable::Kernel, i); });
  collect(
      t.memcpys->size(), t.memcpys->start, t.memcpys->end,
      [&](size_t i) { return t.memcpys->stream[i]; }, offset, streams,
      [](size_t i) { return streamItem(StreamTable::Memcpy, i); });
  collect(
      t.memsets->size(), t.memsets->start, t.memsets->end,
      [&](size_t i) { return t.memsets->stream[i]; }, offset, streams,
      [](size_t i) { return streamItem(StreamTable::Memset, i); });
  for (size_t s = 0; s < streams.size(); ++s) {
    add(RowKind::Stream, rank + " " + streamName(t, static_cast<traces::StreamIndex>(s)),
        std::move(streams[s]));
  }

  // Host threads: NCCL calls, CUDA API calls, NVTX ranges.
  const size_t threads = t.threads.size();
  std::vector<std::vector<Span>> nccl(threads), api(threads), nvtx(threads);
  const auto self = [](size_t i) { return static_cast<uint32_t>(i); };
  collect(
      t.ncclCalls->size(), t.ncclCalls->start, t.ncclCalls->end,
      [&](size_t i) { return t.ncclCalls->thread[i]; }, offset, nccl, self);
  collect(
      t.apiCalls->size(), t.apiCalls->start, t.apiCalls->end,
      [&](size_t i) { return t.apiCalls->thread[i]; }, offset, api, self);
  for (size_t th = 0; th < threads; ++th) {
    const std::string name = threadName(t, static_cast<traces::ThreadIndex>(th));
    add(RowKind::Nccl, rank + " NCCL " + name, std::move(nccl[th]));
    add(RowKind::Api, rank + " CUDA API " + name, std::move(api[th]));
  }

  // NVTX: push/pop ranges of a thread nest, so a lane per depth keeps parents above children;
  // start/end ranges may cross anything and are packed into lanes of their own below.
  std::vector<std::vector<std::vector<Span>>> byDepth(threads);
  std::vector<std::vector<Span>> crossing(threads);
  for (size_t i = 0; i < t.ranges->size(); ++i) {
    const size_t th = t.ranges->thread[i];
    if (th >= threads) continue;
    const Span s{t.ranges->start[i] + offset, t.ranges->end[i] + offset, static_cast<uint32_t>(i)};
    if (t.ranges->kind[i] == traces::RangeKind::StartEnd) {
      crossing[th].push_back(s);
      continue;
    }
    auto& levels = byDepth[th];
    const size_t d = t.ranges->depth[i];
    if (levels.size() <= d) levels.resize(d + 1);
    levels[d].push_back(s);
  }
  for (size_t th = 0; th < threads; ++th) {
    Row r;
    r.kind = RowKind::Nvtx;
    r.label = rank + " NVTX " + threadName(t, static_cast<traces::ThreadIndex>(th));
    r.rank = rankIndex;
    for (auto& level : byDepth[th]) {
      // A depth's ranges do not overlap unless the trace lost a pop; packing keeps them visible.
      for (Track& lane : packLanes(std::move(level))) {
        if (!lane.empty()) r.lanes.push_back(std::move(lane));
      }
    }
    for (Track& lane : packLanes(std::move(crossing[th]))) r.lanes.push_back(std::move(lane));
    if (!r.lanes.empty()) rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace bubblescope::gui
