// NCCL calls from NCCL's NVTX ranges, tied to the kernels they launched: a call outside a group
// launches its kernel inside its own range; the calls of a group (ncclGroupStart .. ncclGroupEnd,
// as batch_isend_irecv makes) launch one fused kernel inside the outermost ncclGroupEnd, which
// then serves every call of the group: one correlation row per call.
#include <algorithm>
#include <numeric>
#include <set>
#include <tuple>
#include <unordered_map>

#include "traces/import/nsys/nsys_reader.h"

namespace bubblescope::traces::import {
namespace {

bool isNcclKernelName(std::string_view n) {
  return n.starts_with("nccl") || n.find("ncclDevKernel") != std::string_view::npos ||
         n.find("ncclKernel") != std::string_view::npos;
}

// The outermost ncclGroupEnd of a group, and the work calls made inside the group.
struct Group {
  ThreadIndex thread = 0;
  TimeNs start = 0, end = 0;
  std::vector<uint32_t> calls;
};

// Sorted by (thread, start): the last item on `thread` that starts at or before `t`, walking back
// over at most `steps` items to one whose span holds `t`.
template <class T, class Thread, class Start, class End>
const T* holding(const std::vector<T>& items, ThreadIndex thread, TimeNs t, Thread threadOf,
                 Start startOf, End endOf) {
  auto it = std::upper_bound(items.begin(), items.end(), std::make_pair(thread, t),
                             [&](const std::pair<ThreadIndex, TimeNs>& v, const T& c) {
                               return v.first != threadOf(c) ? v.first < threadOf(c)
                                                             : v.second < startOf(c);
                             });
  // NCCL nests its API ranges only shallowly.
  for (int steps = 0; it != items.begin() && steps < 8; ++steps) {
    --it;
    if (threadOf(*it) != thread) break;
    if (startOf(*it) <= t && t <= endOf(*it)) return &*it;
  }
  return nullptr;
}

}  // namespace

void NsysReader::linkNcclKernels(Rank& r) {
  RankTrace& t = r.builder.trace();
  auto& n = *t.ncclCalls;
  if (n.size() == 0) return;

  // A call knows its rank in the communicator only from the communicator's creation.
  std::unordered_map<uint64_t, std::pair<int32_t, int32_t>> created;  // comm -> rank, size
  for (uint32_t i = 0; i < n.size(); ++i) {
    if (n.comm[i] != 0 && n.commRank[i] >= 0) created[n.comm[i]] = {n.commRank[i], n.commSize[i]};
  }
  for (uint32_t i = 0; i < n.size(); ++i) {
    auto it = n.commRank[i] < 0 ? created.find(n.comm[i]) : created.end();
    if (it != created.end()) std::tie(n.commRank[i], n.commSize[i]) = it->second;
  }

  // Each thread's calls in order: the group depth at each, the groups, the calls outside any.
  std::vector<uint32_t> order(n.size());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return n.thread[a] != n.thread[b] ? n.thread[a] < n.thread[b] : n.start[a] < n.start[b];
  });
  std::vector<uint32_t> single;
  std::vector<Group> groups;
  std::vector<uint32_t> members;
  int depth = 0;
  for (size_t k = 0; k < order.size(); ++k) {
    const uint32_t i = order[k];
    if (k > 0 && n.thread[i] != n.thread[order[k - 1]]) {
      depth = 0;
      members.clear();
    }
    n.groupDepth[i] = static_cast<uint8_t>(std::min(depth, 255));
    if (n.op[i] == NcclOp::GroupStart) {
      if (depth++ == 0) members.clear();
    } else if (n.op[i] == NcclOp::GroupEnd) {
      if (depth > 0 && --depth == 0 && !members.empty()) {
        groups.push_back({n.thread[i], n.start[i], n.end[i], std::move(members)});
        members.clear();
      }
    } else if (movesData(n.op[i])) {
      (depth > 0 ? members : single).push_back(i);
    }
  }

  std::unordered_map<uint32_t, size_t> launchOf;
  for (size_t i = 0; i < t.apiCalls->size(); ++i) launchOf[t.apiCalls->correlation[i]] = i;
  auto tie = [&](uint32_t correlation, uint32_t call) {
    t.correlations->correlation.push_back(correlation);
    t.correlations->externalKind.push_back(ExternalKind::NcclCall);
    t.correlations->externalId.push_back(n.id[call]);
  };
  uint64_t acrossComms = 0;
  for (size_t k = 0; k < t.kernels->size(); ++k) {
    if (!isNcclKernelName(t.strings.at(t.kernels->name[k]))) continue;
    auto l = launchOf.find(t.kernels->correlation[k]);
    if (l == launchOf.end()) continue;
    const ThreadIndex thread = t.apiCalls->thread[l->second];
    const TimeNs at = t.apiCalls->start[l->second];
    const uint32_t corr = t.kernels->correlation[k];
    const Group* g = holding(
        groups, thread, at, [](const Group& x) { return x.thread; },
        [](const Group& x) { return x.start; }, [](const Group& x) { return x.end; });
    if (g) {
      // NCCL launches a kernel per communicator of the group; which one ran which calls is not
      // recorded, so a group over several communicators ties its kernels to none.
      std::set<uint64_t> comms;
      for (uint32_t c : g->calls) comms.insert(n.comm[c]);
      if (comms.size() > 1) {
        ++acrossComms;
        continue;
      }
      for (uint32_t c : g->calls) tie(corr, c);
      continue;
    }
    const uint32_t* c = holding(
        single, thread, at, [&](uint32_t x) { return n.thread[x]; },
        [&](uint32_t x) { return n.start[x]; }, [&](uint32_t x) { return n.end[x]; });
    if (c) tie(corr, *c);
  }
  if (acrossComms > 0) {
    out_.notes.push_back(std::to_string(acrossComms) +
                         " NCCL kernels were launched by groups over several communicators and "
                         "are tied to none of their calls");
  }
}

}  // namespace bubblescope::traces::import
