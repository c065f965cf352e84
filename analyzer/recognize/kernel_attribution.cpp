#include "analyzer/recognize/kernel_attribution.h"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>

namespace bubblescope::analysis {
namespace {

using traces::ThreadIndex;

struct Launch {
  ThreadIndex thread = 0;
  TimeNs time = 0;
};

// Ranges of one thread that can own GPU work, sorted by start: index >= 0 an op, < 0 a comm
// (-1 - index).
struct Owner {
  TimeNs start, end;
  int64_t index;
};

const Owner* enclosing(const std::vector<Owner>& owners, TimeNs t) {
  auto it = std::upper_bound(owners.begin(), owners.end(), t,
                             [](TimeNs v, const Owner& o) { return v < o.start; });
  // The innermost enclosing range starts last: walk back over the few that start before t.
  for (int steps = 0; it != owners.begin() && steps < 4; ++steps) {
    --it;
    if (t >= it->start && t <= it->end) return &*it;
  }
  return nullptr;
}

// The op or comm range a launch belongs to: the one enclosing it on its own thread, else the
// one op range of another thread that encloses it. PyTorch's autograd engine launches a
// backward's kernels from its device thread while the PP range that called backward() stays
// open on the main thread; a launch two threads' ops both enclose is left unowned.
const Owner* ownerOf(const std::unordered_map<traces::ThreadIndex, std::vector<Owner>>& owners,
                     const Launch& launch) {
  if (auto o = owners.find(launch.thread); o != owners.end()) {
    if (const Owner* own = enclosing(o->second, launch.time)) return own;
  }
  const Owner* found = nullptr;
  for (const auto& [thread, list] : owners) {
    if (thread == launch.thread) continue;
    const Owner* other = enclosing(list, launch.time);
    if (!other || other->index < 0) continue;
    if (found) return nullptr;
    found = other;
  }
  return found;
}

}  // namespace

bool isNcclKernel(std::string_view name) {
  return name.starts_with("nccl") || name.find("ncclKernel") != std::string_view::npos ||
         name.find("ncclDevKernel") != std::string_view::npos;
}

std::vector<int8_t> ncclNames(const traces::RankTrace& t) {
  std::vector<int8_t> nccl(t.strings.size(), -1);
  for (traces::StringId name : t.kernels->name) {
    if (nccl[name] < 0) nccl[name] = isNcclKernel(t.strings.at(name)) ? 1 : 0;
  }
  return nccl;
}

std::vector<Interval> computeKernelsByStart(const traces::RankTrace& t) {
  const std::vector<int8_t> nccl = ncclNames(t);
  const traces::Kernels& k = t.kernels;
  size_t compute = 0;
  for (size_t i = 0; i < k.size(); ++i) compute += nccl[k.name[i]] == 0;
  std::vector<Interval> out;
  out.reserve(compute);  // held for every such rank of the run: no growth slack
  for (size_t i = 0; i < k.size(); ++i) {
    if (nccl[k.name[i]] == 0) out.push_back({k.start[i], k.end[i]});
  }
  return out;  // the kernels table is sorted by start
}

TimeNs unionLength(std::vector<Interval> v) {
  std::sort(v.begin(), v.end(),
            [](const Interval& a, const Interval& b) { return a.start < b.start; });
  TimeNs total = 0, curStart = 0, curEnd = 0;
  bool open = false;
  for (const Interval& i : v) {
    if (!open || i.start > curEnd) {
      if (open) total += curEnd - curStart;
      curStart = i.start;
      curEnd = i.end;
      open = true;
    } else {
      curEnd = std::max(curEnd, i.end);
    }
  }
  if (open) total += curEnd - curStart;
  return total;
}

void attributeKernels(const traces::RankTrace& t, RankOps& ops,
                      std::span<const traces::ThreadIndex> opThread) {
  if (opThread.size() != ops.ops.size()) {
    throw std::invalid_argument("attributeKernels: one thread per op");
  }
  const auto& k = *t.kernels;
  if (k.size() == 0) return;
  ops.hasKernels = true;

  // Launch calls by correlation id, as a sorted array: 8 bytes a call where a hash map took
  // about 50 (analysis budget: 64 B per event in all, issue 4). A repeated id keeps its last call.
  std::vector<std::pair<uint32_t, uint32_t>> launchIndex;  // (correlation, api call)
  launchIndex.reserve(t.apiCalls->size());
  for (size_t i = 0; i < t.apiCalls->size(); ++i) {
    if (t.apiCalls->correlation[i] != 0) {
      launchIndex.emplace_back(t.apiCalls->correlation[i], static_cast<uint32_t>(i));
    }
  }
  std::stable_sort(launchIndex.begin(), launchIndex.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  auto findLaunch = [&](uint32_t correlation) -> std::optional<Launch> {
    if (correlation == 0) return std::nullopt;
    auto it = std::upper_bound(launchIndex.begin(), launchIndex.end(), correlation,
                               [](uint32_t c, const auto& e) { return c < e.first; });
    if (it == launchIndex.begin() || (--it)->first != correlation) return std::nullopt;
    return Launch{t.apiCalls->thread[it->second], t.apiCalls->start[it->second]};
  };
  auto launchOf = [&](uint32_t correlation) {
    const auto l = findLaunch(correlation);
    return l ? l->time : kNoLaunch;
  };
  // NCCL kernels name their call through the correlation table (importers and the agent's hooks
  // fill it); the call's row is found by its id.
  // A fused kernel (an NCCL group) serves several calls: one row each.
  std::unordered_multimap<uint32_t, uint64_t> callIdOf;
  for (size_t i = 0; i < t.correlations->size(); ++i) {
    if (t.correlations->externalKind[i] == traces::ExternalKind::NcclCall) {
      callIdOf.emplace(t.correlations->correlation[i], t.correlations->externalId[i]);
    }
  }
  std::unordered_map<uint64_t, int32_t> callRowOf;
  if (!callIdOf.empty()) {
    for (size_t i = 0; i < t.ncclCalls->size(); ++i) {
      callRowOf.emplace(t.ncclCalls->id[i], static_cast<int32_t>(i));
    }
  }
  std::unordered_map<ThreadIndex, std::vector<Owner>> owners;
  for (size_t i = 0; i < ops.ops.size(); ++i) {
    const auto& o = ops.ops[i];
    owners[opThread[i]].push_back({ops.hostOf(i).launch, o.end, static_cast<int64_t>(i)});
  }
  for (size_t i = 0; i < ops.comms.size(); ++i) {
    const auto& c = ops.comms[i];
    owners[c.thread].push_back({c.start, c.end, -1 - static_cast<int64_t>(i)});
  }
  for (auto& [thread, list] : owners) {
    std::sort(list.begin(), list.end(),
              [](const Owner& a, const Owner& b) { return a.start < b.start; });
  }

  const std::vector<int8_t> ncclName = ncclNames(t);
  // Room for every kernel and copy, once: grown by doubling, the last move held both copies (on
  // a trace whose kernels no launch ties to an op, all of them land here: 2.4 GB at 10^8 kernels,
  // 4 GB while it moved). Room never written costs no memory; a list far smaller than its room
  // is copied down once filled.
  const size_t otherBound = k.size() + t.memcpys->size() + t.memsets->size();
  ops.otherKernels.reserve(ops.otherKernels.size() + otherBound);
  std::vector<std::vector<Interval>> opKernels(ops.ops.size());
  std::vector<TimeNs> opFirstLaunch(ops.ops.size(), kNoLaunch);
  std::vector<Interval> commSpan(ops.comms.size(), Interval{INT64_MAX, INT64_MIN});
  for (size_t i = 0; i < k.size(); ++i) {
    const Interval span{k.start[i], k.end[i]};
    const bool comm = ncclName[k.name[i]] == 1;
    const Owner* owner = nullptr;
    if (const auto l = findLaunch(k.correlation[i])) owner = ownerOf(owners, *l);
    const TimeNs launch = launchOf(k.correlation[i]);
    if (comm) {
      CommKernel ck;
      ck.start = span.start;
      ck.end = span.end;
      ck.launch = launch;
      ck.transferStart = span.start;
      ck.kernel = static_cast<uint32_t>(i);
      ck.callBegin = static_cast<uint32_t>(ops.commCalls.size());
      const auto [first, last] = callIdOf.equal_range(k.correlation[i]);
      for (auto id = first; id != last; ++id) {
        if (auto row = callRowOf.find(id->second); row != callRowOf.end()) {
          ops.commCalls.push_back(row->second);
        }
      }
      ck.callEnd = static_cast<uint32_t>(ops.commCalls.size());
      ops.commKernels.push_back(ck);
      if (owner && owner->index < 0) {
        Interval& c = commSpan[static_cast<size_t>(-1 - owner->index)];
        c.start = std::min(c.start, span.start);
        c.end = std::max(c.end, span.end);
      }
    } else if (owner && owner->index >= 0) {
      const auto o = static_cast<size_t>(owner->index);
      opKernels[o].push_back(span);
      if (launch != kNoLaunch && (opFirstLaunch[o] == kNoLaunch || launch < opFirstLaunch[o])) {
        opFirstLaunch[o] = launch;
      }
    } else {
      ops.otherKernels.push_back({span.start, span.end, launch});
    }
  }
  for (size_t i = 0; i < t.memcpys->size(); ++i) {
    ops.otherKernels.push_back(
        {t.memcpys->start[i], t.memcpys->end[i], launchOf(t.memcpys->correlation[i])});
  }
  for (size_t i = 0; i < t.memsets->size(); ++i) {
    ops.otherKernels.push_back(
        {t.memsets->start[i], t.memsets->end[i], launchOf(t.memsets->correlation[i])});
  }

  if (ops.otherKernels.capacity() > 2 * ops.otherKernels.size() + 1024) {
    ops.otherKernels.shrink_to_fit();
  }
  auto byStart = [](const auto& a, const auto& b) { return a.start < b.start; };
  std::sort(ops.otherKernels.begin(), ops.otherKernels.end(), byStart);
  std::sort(ops.commKernels.begin(), ops.commKernels.end(), byStart);

  // An op runs from its first kernel to its last; ops that launched nothing keep their range.
  size_t total = 0;
  for (const auto& list : opKernels) total += list.size();
  ops.computeKernels.reserve(total);
  // An op's host range stays its range's as its span becomes its kernels'.
  if (total > 0) holdOpHosts(ops);
  ops.opKernels.resize(ops.ops.size());
  for (size_t i = 0; i < ops.ops.size(); ++i) {
    auto& list = opKernels[i];
    auto& o = ops.ops[i];
    OpKernels& kernels = ops.opKernels[i];
    kernels.begin = static_cast<uint32_t>(ops.computeKernels.size());
    ops.computeKernels.insert(ops.computeKernels.end(), list.begin(), list.end());
    kernels.end = static_cast<uint32_t>(ops.computeKernels.size());
    kernels.firstLaunch = opFirstLaunch[i];
    if (list.empty()) continue;
    o.start = INT64_MAX;
    o.end = INT64_MIN;
    for (const Interval& s : list) {
      o.start = std::min(o.start, s.start);
      o.end = std::max(o.end, s.end);
    }
  }
  // A transfer's device time is its NCCL kernels' span; it was posted when its range began.
  const bool moved = std::any_of(commSpan.begin(), commSpan.end(),
                                 [](const Interval& s) { return s.start <= s.end; });
  if (moved) holdCommLaunches(ops);
  for (size_t i = 0; i < ops.comms.size(); ++i) {
    if (commSpan[i].start <= commSpan[i].end) {
      ops.comms[i].start = commSpan[i].start;
      ops.comms[i].end = commSpan[i].end;
      ops.comms[i].onDevice = true;
    }
  }
  sortOpsByStart(ops);
  sortCommsByStart(ops);
}

}  // namespace bubblescope::analysis
