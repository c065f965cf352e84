#include "traces/import/rank_builder.h"

#include <algorithm>
#include <numeric>
#include <vector>

#include "traces/model/sort.h"

namespace bubblescope::traces::import {
namespace {

uint64_t streamKey(uint32_t device, uint64_t stream) {
  return (uint64_t{device} << 40) ^ stream;
}

template <class Table>
void shift(ColumnGroup<Table>& group, TimeNs offset) {
  if (!group.held()) return;
  Table& t = *group;
  for (auto& v : t.start) v += offset;
  if constexpr (requires { t.end; }) {
    for (auto& v : t.end) v += offset;
  }
}

template <class Table>
void spanOf(const Table& t, Interval& span, bool& any) {
  if (t.size() == 0) return;
  const TimeNs first = *std::min_element(t.start.begin(), t.start.end());
  TimeNs last = *std::max_element(t.start.begin(), t.start.end());
  if constexpr (requires { t.end; })
    last = std::max(last, *std::max_element(t.end.begin(), t.end.end()));
  span.start = any ? std::min(span.start, first) : first;
  span.end = any ? std::max(span.end, last) : last;
  any = true;
}

// The ranges in the order they nest in: the ranges of each thread and domain together, each by
// start, an enclosing range (ending later) before what it encloses, then in the order added (one
// order, however it is sorted, so ranges alike in all four nest as they were added).
std::vector<uint32_t> nestingOrder(const NvtxRanges& r) {
  const auto nests = [&](uint32_t a, uint32_t b) {
    if (r.start[a] != r.start[b]) return r.start[a] < r.start[b];
    if (r.end[a] != r.end[b]) return r.end[a] > r.end[b];
    return a < b;
  };
  // A rank has a few threads and domains: each one's ranges are taken out in one pass, in the
  // order added, which an importer's sorted events leave nearly in order (stableSortRuns).
  constexpr size_t kFewGroups = 64;
  std::vector<std::pair<uint64_t, size_t>> groups;  // (thread << 32 | domain, ranges)
  std::vector<uint32_t> order(r.size());
  const auto groupOf = [&](size_t i) -> size_t {
    const uint64_t key = uint64_t{r.thread[i]} << 32 | r.domain[i];
    for (size_t g = 0; g < groups.size(); ++g) {
      if (groups[g].first == key) return g;
    }
    groups.emplace_back(key, 0);
    return groups.size() - 1;
  };
  for (size_t i = 0; i < r.size() && groups.size() <= kFewGroups; ++i) ++groups[groupOf(i)].second;
  if (groups.size() > kFewGroups) {
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      if (r.thread[a] != r.thread[b]) return r.thread[a] < r.thread[b];
      if (r.domain[a] != r.domain[b]) return r.domain[a] < r.domain[b];
      return nests(a, b);
    });
    return order;
  }
  std::vector<size_t> next(groups.size() + 1, 0);  // where each group's next range goes
  for (size_t g = 0; g < groups.size(); ++g) next[g + 1] = next[g] + groups[g].second;
  const std::vector<size_t> begin = next;
  for (size_t i = 0; i < r.size(); ++i) order[next[groupOf(i)]++] = static_cast<uint32_t>(i);
  for (size_t g = 0; g < groups.size(); ++g) {
    traces::stableSortRuns(order.begin() + static_cast<std::ptrdiff_t>(begin[g]),
                           order.begin() + static_cast<std::ptrdiff_t>(begin[g + 1]), nests);
  }
  return order;
}

}  // namespace

ThreadIndex RankBuilder::thread(uint64_t tid) {
  auto [it, added] = threads_.try_emplace(tid, 0);
  if (added) {
    it->second = static_cast<ThreadIndex>(trace_.threads.size());
    trace_.threads.push_back(Thread{tid, 0});
  }
  return it->second;
}

void RankBuilder::nameThread(uint64_t tid, std::string_view name) {
  trace_.threads[thread(tid)].name = intern(name);
}

StreamIndex RankBuilder::stream(uint32_t device, uint64_t streamId) {
  auto [it, added] = streams_.try_emplace(streamKey(device, streamId), 0);
  if (added) {
    it->second = static_cast<StreamIndex>(trace_.streams.size());
    trace_.streams.push_back(Stream{device, streamId, 0});
  }
  return it->second;
}

void RankBuilder::nameStream(uint32_t device, uint64_t streamId, std::string_view name) {
  trace_.streams[stream(device, streamId)].name = intern(name);
}

void RankBuilder::addDevice(uint32_t id, std::string_view name, std::string_view uuid) {
  for (auto& d : trace_.devices) {
    if (d.id == id) {
      if (!name.empty()) d.name = intern(name);
      if (!uuid.empty()) d.uuid = uuid;
      return;
    }
  }
  trace_.devices.push_back(Device{id, intern(name), std::string(uuid)});
}

bool RankBuilder::hasDevice(uint32_t id) const {
  return std::any_of(trace_.devices.begin(), trace_.devices.end(),
                     [&](const Device& d) { return d.id == id; });
}

void RankBuilder::reserveRanges(size_t n) {
  const size_t want = trace_.ranges->size() + n;
  trace_.ranges->forEachColumn([&](auto& column) { column.reserve(want); });
}

void RankBuilder::addRange(TimeNs start, TimeNs end, ThreadIndex thread, StringId domain,
                           StringId name, RangeKind kind) {
  auto& r = *trace_.ranges;
  r.start.push_back(start);
  r.end.push_back(std::max(start, end));
  r.thread.push_back(thread);
  r.domain.push_back(domain);
  r.name.push_back(name);
  r.depth.push_back(0);
  r.kind.push_back(kind);
}

void RankBuilder::addMark(TimeNs ts, ThreadIndex thread, StringId domain, StringId name) {
  auto& m = *trace_.marks;
  m.start.push_back(ts);
  m.thread.push_back(thread);
  m.domain.push_back(domain);
  m.name.push_back(name);
}

void RankBuilder::addKernel(TimeNs start, TimeNs end, StreamIndex stream, StringId name,
                            uint32_t corr) {
  auto& k = *trace_.kernels;
  k.start.push_back(start);
  k.end.push_back(std::max(start, end));
  k.stream.push_back(stream);
  k.name.push_back(name);
  k.correlation.push_back(corr);
}

void RankBuilder::addMemcpy(TimeNs start, TimeNs end, StreamIndex stream, uint32_t corr,
                            uint64_t bytes, MemcpyKind kind) {
  auto& m = *trace_.memcpys;
  m.start.push_back(start);
  m.end.push_back(std::max(start, end));
  m.stream.push_back(stream);
  m.correlation.push_back(corr);
  m.bytes.push_back(bytes);
  m.copyKind.push_back(kind);
}

void RankBuilder::addMemset(TimeNs start, TimeNs end, StreamIndex stream, uint32_t corr,
                            uint64_t bytes) {
  auto& m = *trace_.memsets;
  m.start.push_back(start);
  m.end.push_back(std::max(start, end));
  m.stream.push_back(stream);
  m.correlation.push_back(corr);
  m.bytes.push_back(bytes);
}

void RankBuilder::addSync(TimeNs start, TimeNs end, StreamIndex stream, uint32_t corr,
                          SyncKind kind) {
  auto& s = *trace_.syncs;
  s.start.push_back(start);
  s.end.push_back(std::max(start, end));
  s.stream.push_back(stream);
  s.correlation.push_back(corr);
  s.syncKind.push_back(kind);
}

void RankBuilder::addApiCall(TimeNs start, TimeNs end, ThreadIndex thread, StringId name,
                             uint32_t corr) {
  auto& a = *trace_.apiCalls;
  a.start.push_back(start);
  a.end.push_back(std::max(start, end));
  a.thread.push_back(thread);
  a.name.push_back(name);
  a.correlation.push_back(corr);
}

void RankBuilder::setDeviceMemory(uint32_t id, uint64_t bytes) {
  if (!hasDevice(id)) addDevice(id, "");
  for (Device& d : trace_.devices) {
    if (d.id == id) d.memoryBytes = bytes;
  }
}

void RankBuilder::addMemoryUsage(TimeNs ts, uint32_t device, int64_t allocated, int64_t reserved) {
  auto& m = *trace_.memory;
  m.start.push_back(ts);
  m.device.push_back(device);
  m.allocated.push_back(allocated);
  m.reserved.push_back(reserved);
}

RankTrace RankBuilder::finish(TimeNs offset) {
  RankTrace& t = trace_;
  if (offset != 0) {
    shift(t.ranges, offset);
    shift(t.marks, offset);
    shift(t.kernels, offset);
    shift(t.memcpys, offset);
    shift(t.memsets, offset);
    shift(t.syncs, offset);
    shift(t.apiCalls, offset);
    shift(t.ncclCalls, offset);
    shift(t.memory, offset);
  }
  computeRangeDepths(t.ranges);
  sortEvents(t);
  t.settle();
  threads_.clear();
  streams_.clear();
  return std::move(t);
}

void computeRangeDepths(NvtxRanges& r) {
  const std::vector<uint32_t> order = nestingOrder(r);
  std::vector<TimeNs> open;  // ends of the ranges enclosing the current one
  for (size_t k = 0; k < order.size(); ++k) {
    const uint32_t i = order[k];
    if (k == 0 || r.thread[i] != r.thread[order[k - 1]] || r.domain[i] != r.domain[order[k - 1]]) {
      open.clear();
    }
    // An open range encloses this one if it ends no earlier, and does not end where this starts
    // (unless this one is an instant there).
    const auto encloses = [&](TimeNs openEnd) {
      return openEnd >= r.end[i] && (openEnd > r.start[i] || r.end[i] == r.start[i]);
    };
    while (!open.empty() && !encloses(open.back())) open.pop_back();
    r.depth[i] = static_cast<uint16_t>(std::min<size_t>(open.size(), UINT16_MAX));
    open.push_back(r.end[i]);
  }
}

Interval traceSpan(const RankTrace& t) {
  Interval span;
  bool any = false;
  spanOf(*t.ranges, span, any);
  spanOf(*t.marks, span, any);
  spanOf(*t.kernels, span, any);
  spanOf(*t.memcpys, span, any);
  spanOf(*t.memsets, span, any);
  spanOf(*t.syncs, span, any);
  spanOf(*t.apiCalls, span, any);
  spanOf(*t.ncclCalls, span, any);
  return span;
}

}  // namespace bubblescope::traces::import
