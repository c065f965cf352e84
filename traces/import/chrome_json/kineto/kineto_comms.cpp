#include "traces/import/chrome_json/kineto/kineto_comms.h"

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <unordered_set>

#include "traces/import/chrome_json/kineto/untied_kernels.h"

namespace bubblescope::traces::import {
namespace {

// groupDepth 1: one of a coalesced group's calls.
struct Call : ImportCall {
  std::vector<uint64_t> externalIds;
};

template <class T>
bool byThreadThenStart(const T& a, const T& b) {
  return a.thread != b.thread ? a.thread < b.thread : a.start < b.start;
}

// The element count NCCL is called with: what one rank sends (all-gather: its share) or receives
// (reduce-scatter: its share).
uint64_t countOf(const CommRecord& r, NcclOp op) {
  const bool out = op == NcclOp::Recv || op == NcclOp::ReduceScatter;
  const uint64_t first = out ? r.outNelems : r.inNelems;
  return first ? first : (out ? r.inNelems : r.outNelems);
}

}  // namespace

NcclCallFields callFieldsOf(const CommRecord& r, int rank) {
  NcclCallFields c;
  c.op = r.op.value_or(NcclOp::Unknown);
  c.peer = r.peer;
  c.count = countOf(r, c.op);
  if (r.dtype) {
    c.dtype = r.dtype->nccl;
    c.bytes = c.count * r.dtype->bytes;
  }
  static const std::vector<int> kNoRanks;
  const std::vector<int>& ranks = r.group ? r.group->ranks : kNoRanks;
  if (r.group) c.comm = r.group->comm;
  c.commSize = r.groupSize >= 0 ? r.groupSize : static_cast<int32_t>(ranks.size());
  if (c.commSize == 0) c.commSize = -1;
  if (rank >= 0) {
    auto it = std::find(ranks.begin(), ranks.end(), rank);
    if (it != ranks.end()) c.commRank = static_cast<int32_t>(it - ranks.begin());
  }
  // The model's peer is NCCL's: the rank within the communicator. c10d writes the peer's global
  // rank; with the group's ranks known it becomes its place there (else it stays global, and the
  // call knows no rank of its own).
  if (c.commRank >= 0 && c.peer >= 0) {
    auto it = std::find(ranks.begin(), ranks.end(), c.peer);
    if (it != ranks.end()) {
      c.peer = static_cast<int32_t>(it - ranks.begin());
    } else {
      c.commRank = -1;
    }
  }
  c.seq = r.seq;
  return c;
}

namespace {

Call fromRecord(const CommRecord& r, int rank) {
  Call c;
  c.fields() = callFieldsOf(r, rank);
  c.start = r.start;
  c.end = r.end;
  c.thread = r.thread;
  c.externalIds.push_back(r.externalId);
  return c;
}

// The call on `thread` whose span holds `t`, among calls sorted by (thread, start).
const Call* enclosing(const std::vector<Call>& calls, ThreadIndex thread, TimeNs t) {
  auto it = std::upper_bound(calls.begin(), calls.end(), std::make_pair(thread, t),
                             [](const std::pair<ThreadIndex, TimeNs>& v, const Call& c) {
                               return v.first != c.thread ? v.first < c.thread : v.second < c.start;
                             });
  for (int steps = 0; it != calls.begin() && steps < 8; ++steps) {
    --it;
    if (it->thread != thread) break;
    if (it->start <= t && t <= it->end) return &*it;
  }
  return nullptr;
}

}  // namespace

const ProcessGroup* ProcessGroups::intern(std::string_view name, std::string_view ranksText) {
  if (name.empty() && ranksText.empty()) return nullptr;
  key_.assign(name).push_back('\0');  // a name holds no NUL: the key splits one way only
  key_.append(ranksText);
  auto it = byText_.find(key_);
  if (it == byText_.end()) {
    auto group = std::make_unique<ProcessGroup>(
        ProcessGroup{std::string(name), parseRankList(ranksText), 0});
    if (!group->name.empty()) group->comm = stableHash("pg:" + group->name);
    it = byText_.emplace(key_, std::move(group)).first;
  }
  return it->second.get();
}

std::vector<int> parseRankList(std::string_view text) {
  // A number too large for a rank is not one (the file is damaged); it is dropped rather
  // than wrapped around into some other rank.
  constexpr int64_t kNotARank = int64_t{1} << 31;
  std::vector<int> out;
  int64_t v = 0;
  bool in = false;
  auto finish = [&] {
    if (in && v < kNotARank) out.push_back(static_cast<int>(v));
    v = 0;
    in = false;
  };
  for (char c : text) {
    if (c >= '0' && c <= '9') {
      if (v < kNotARank) v = v * 10 + (c - '0');
      in = true;
    } else {
      finish();
    }
  }
  finish();
  return out;
}

std::vector<NcclKernelRef> unrecordedCommLaunches(const RankTrace& t,
                                                  const std::vector<CommRecord>& records) {
  if (records.empty()) return {};
  std::vector<const CommRecord*> spans;
  for (const CommRecord& r : records) spans.push_back(&r);
  std::sort(spans.begin(), spans.end(),
            [](const CommRecord* a, const CommRecord* b) { return byThreadThenStart(*a, *b); });
  // Launches by name, per name: a few names, many calls.
  std::vector<int8_t> isLaunch(t.strings.size(), -1);
  std::unordered_map<uint32_t, uint64_t> launched;  // correlation -> the record's external id
  const ApiCalls& a = t.apiCalls;
  for (size_t i = 0; i < a.size(); ++i) {
    int8_t& known = isLaunch[a.name[i]];
    if (known < 0) {
      known = t.strings.at(a.name[i]).find("LaunchKernel") != std::string_view::npos ? 1 : 0;
    }
    if (known == 0 || a.correlation[i] == 0) continue;
    auto it =
        std::upper_bound(spans.begin(), spans.end(), std::make_pair(a.thread[i], a.start[i]),
                         [](const std::pair<ThreadIndex, TimeNs>& v, const CommRecord* r) {
                           return v.first != r->thread ? v.first < r->thread : v.second < r->start;
                         });
    if (it == spans.begin()) continue;
    const CommRecord& r = **(it - 1);
    if (r.thread == a.thread[i] && a.start[i] <= r.end) launched[a.correlation[i]] = r.externalId;
  }
  for (uint32_t c : t.kernels->correlation) launched.erase(c);
  std::vector<NcclKernelRef> out;
  for (const auto& [correlation, external] : launched) {
    NcclKernelRef k;
    k.externalId = external;
    k.correlation = correlation;
    out.push_back(std::move(k));
  }
  std::sort(out.begin(), out.end(), [](const NcclKernelRef& x, const NcclKernelRef& y) {
    return x.correlation < y.correlation;
  });
  return out;
}

void buildNcclCalls(RankTrace& t, std::vector<CommRecord> records, std::vector<CommTitle> titles,
                    const std::vector<NcclKernelRef>& kernels) {
  std::sort(records.begin(), records.end(), byThreadThenStart<CommRecord>);
  std::sort(titles.begin(), titles.end(), byThreadThenStart<CommTitle>);

  // A title inside a record_param_comms names its collective (older PyTorch wrote no
  // "Collective name") and the peer of a send/recv.
  std::vector<bool> titleUsed(titles.size(), false);
  std::vector<std::vector<uint64_t>> aliases(records.size());
  size_t first = 0;
  for (size_t i = 0; i < records.size(); ++i) {
    CommRecord& r = records[i];
    CommTitle at;
    at.start = r.start;
    at.thread = r.thread;
    while (first < titles.size() && byThreadThenStart(titles[first], at)) {
      ++first;
    }
    for (size_t j = first;
         j < titles.size() && titles[j].thread == r.thread && titles[j].start <= r.end; ++j) {
      if (titleUsed[j] || titles[j].end > r.end) continue;
      titleUsed[j] = true;
      if (!r.named) r.op = titles[j].title.op;
      if (r.peer < 0) r.peer = titles[j].title.peer;
      aliases[i].push_back(titles[j].externalId);
      break;
    }
  }

  std::vector<Call> calls;
  std::vector<const CommRecord*> coalesced;
  for (size_t i = 0; i < records.size(); ++i) {
    if (records[i].coalesced) coalesced.push_back(&records[i]);
    if (!records[i].op) continue;  // "wait", or no name anywhere: not an NCCL call
    calls.push_back(fromRecord(records[i], t.meta.rank));
    for (uint64_t a : aliases[i]) calls.back().externalIds.push_back(a);
  }
  for (size_t j = 0; j < titles.size(); ++j) {
    if (titleUsed[j]) continue;
    Call c;
    c.start = titles[j].start;
    c.end = titles[j].end;
    c.thread = titles[j].thread;
    c.op = titles[j].title.op;
    c.peer = titles[j].title.peer;
    c.externalIds.push_back(titles[j].externalId);
    calls.push_back(std::move(c));
  }
  std::sort(calls.begin(), calls.end(), byThreadThenStart<Call>);

  std::unordered_map<uint64_t, uint64_t> callOfExternal;
  for (size_t i = 0; i < calls.size(); ++i) {
    for (uint64_t e : calls[i].externalIds) {
      if (e) callOfExternal.emplace(e, i + 1);
    }
  }
  // Kernels whose external id is not a call's (older Kineto used the correlation id there): the
  // call enclosing their launch.
  std::unordered_set<uint32_t> unmatched;
  for (const auto& k : kernels) {
    if (!callOfExternal.count(k.externalId)) unmatched.insert(k.correlation);
  }
  std::unordered_map<uint32_t, Launch> launches;
  if (!unmatched.empty()) {
    const auto& a = *t.apiCalls;
    for (size_t i = 0; i < a.size(); ++i) {
      if (unmatched.count(a.correlation[i])) {
        launches[a.correlation[i]] = {a.thread[i], a.start[i], a.end[i]};
      }
    }
  }

  // A coalesced group (batch_isend_irecv) launches one kernel for all its calls: those on its
  // thread since the previous group that launched nothing themselves.
  std::unordered_set<uint64_t> launching;
  for (const auto& k : kernels) launching.insert(k.externalId);
  std::unordered_map<uint64_t, std::vector<uint64_t>> groupCalls;  // external id -> call ids
  for (const CommRecord* g : coalesced) {
    auto it =
        std::lower_bound(calls.begin(), calls.end(), std::make_pair(g->thread, g->start),
                         [](const Call& c, const std::pair<ThreadIndex, TimeNs>& v) {
                           return c.thread != v.first ? c.thread < v.first : c.start < v.second;
                         });
    std::vector<uint64_t>& members = groupCalls[g->externalId];
    while (it != calls.begin()) {
      --it;
      const bool ownKernel = std::any_of(it->externalIds.begin(), it->externalIds.end(),
                                         [&](uint64_t e) { return launching.count(e) > 0; });
      if (it->thread != g->thread || !isPointToPoint(it->op) || ownKernel || it->groupDepth != 0) {
        break;
      }
      it->groupDepth = 1;
      members.push_back(static_cast<uint64_t>(it - calls.begin()) + 1);
    }
  }

  // Each kernel's calls (ids: index into `calls` + 1).
  std::vector<std::vector<uint64_t>> idsOf(kernels.size());
  std::vector<KernelTie> ties(kernels.size());
  for (size_t j = 0; j < kernels.size(); ++j) {
    const NcclKernelRef& k = kernels[j];
    KernelTie& tie = ties[j];
    tie.kernel = &k;
    if (auto l = launches.find(k.correlation); l != launches.end()) tie.launch = l->second;
    if (auto g = groupCalls.find(k.externalId); g != groupCalls.end() && !g->second.empty()) {
      idsOf[j] = g->second;
      tie.group = true;
    } else if (auto it = callOfExternal.find(k.externalId); it != callOfExternal.end()) {
      idsOf[j].push_back(it->second);
    } else if (tie.launch) {
      if (const Call* c = enclosing(calls, tie.launch->thread, tie.launch->start)) {
        idsOf[j].push_back(static_cast<uint64_t>(c - calls.data()) + 1);
      }
    }
    // A group's members were found walking back from it: the first posted is the last found.
    if (!idsOf[j].empty())
      tie.call = &calls[*std::min_element(idsOf[j].begin(), idsOf[j].end()) - 1];
  }
  // Kernels no call of the trace launched stand for calls of their own.
  const std::vector<std::optional<ImportCall>> own = callsOfUntiedKernels(ties, t.meta.rank);
  for (size_t j = 0; j < kernels.size(); ++j) {
    if (!own[j]) continue;
    Call c;
    static_cast<ImportCall&>(c) = *own[j];
    calls.push_back(std::move(c));
    idsOf[j].push_back(calls.size());
  }

  for (size_t i = 0; i < calls.size(); ++i) {
    const Call& c = calls[i];
    NcclCall n;
    n.fields() = c;
    n.start = c.start;
    n.end = c.end;
    n.thread = c.thread;
    n.id = i + 1;
    n.source = NcclSource::Import;
    t.ncclCalls->push(n);
  }
  auto& corr = *t.correlations;
  for (size_t j = 0; j < kernels.size(); ++j) {
    if (kernels[j].correlation == 0) continue;
    for (uint64_t id : idsOf[j]) {
      corr.correlation.push_back(kernels[j].correlation);
      corr.externalKind.push_back(ExternalKind::NcclCall);
      corr.externalId.push_back(id);
    }
  }
}

}  // namespace bubblescope::traces::import
