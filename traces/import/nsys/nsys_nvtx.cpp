// NVTX from an nsys export: ranges and marks with their domains, NCCL's own ranges as NCCL calls,
// and NCCL kernels tied to the call whose range encloses their launch.
#include <algorithm>
#include <charconv>
#include <map>
#include <unordered_map>

#include "traces/import/collectives.h"
#include "traces/import/nsys/nsys_reader.h"

namespace bubblescope::traces::import {
namespace {

constexpr int64_t kPidBits = 0xFFFFFF;

// A number following `"<key>":` in an NVTX payload's JSON rendering, or -1.
int64_t payloadNumber(std::string_view json, std::string_view key) {
  const size_t k = json.find(key);
  if (k == std::string_view::npos) return -1;
  size_t p = json.find(':', k + key.size());
  if (p == std::string_view::npos) return -1;
  ++p;
  while (p < json.size() && (json[p] == ' ' || json[p] == '"')) ++p;
  int64_t v = -1;
  std::from_chars(json.data() + p, json.data() + json.size(), v);
  return v;
}

bool isNcclKernelName(std::string_view n) {
  return n.starts_with("nccl") || n.find("ncclDevKernel") != std::string_view::npos ||
         n.find("ncclKernel") != std::string_view::npos;
}

}  // namespace

void NsysReader::readNvtx() {
  const char* t = "NVTX_EVENTS";
  if (!schema_.has(t, "eventType") || !schema_.has(t, "globalTid")) return;
  const int pushPop = schema_.enumId("ENUM_NSYS_EVENT_TYPE", "NvtxPushPopRange", 59);
  const int startEnd = schema_.enumId("ENUM_NSYS_EVENT_TYPE", "NvtxStartEndRange", 60);
  const int mark = schema_.enumId("ENUM_NSYS_EVENT_TYPE", "NvtxMark", 34);
  const int domainCreate = schema_.enumId("ENUM_NSYS_EVENT_TYPE", "NvtxDomainCreate", 75);
  const int textPushPop = schema_.enumId("ENUM_NSYS_EVENT_TYPE", "NvtxtPushPopRange", 70);
  const int textStartEnd = schema_.enumId("ENUM_NSYS_EVENT_TYPE", "NvtxtStartEndRange", 71);
  const bool registered = schema_.has(t, "textId") && schema_.has("StringIds");
  const std::string text =
      registered ? "coalesce(text, (SELECT value FROM StringIds WHERE id = textId))" : "text";
  const std::string domain = schema_.column(t, "domainId", "0");

  // Domain names, per process: a domain id means nothing outside the process that created it.
  std::map<std::pair<int64_t, int64_t>, std::string> domains;
  {
    auto st = db_.prepare("SELECT globalTid >> 24, " + domain + ", " + text + " FROM " + t +
                          " WHERE eventType = " + std::to_string(domainCreate));
    while (st.step()) domains[{st.int64(0), st.int64(1)}] = std::string(st.text(2));
  }

  auto st = db_.prepare("SELECT start, end, eventType, globalTid, " + domain + ", " + text + ", " +
                        (registered ? "textId" : "NULL") + ", " + schema_.column(t, "jsonText") +
                        " FROM " + t + " WHERE eventType IN (" + std::to_string(pushPop) + ", " +
                        std::to_string(startEnd) + ", " + std::to_string(mark) + ", " +
                        std::to_string(textPushPop) + ", " + std::to_string(textStartEnd) + ")");
  std::vector<std::map<int64_t, StringId>> domainIds(ranks_.size());
  uint64_t outside = 0;
  while (st.step()) {
    const int64_t gtid = st.int64(3);
    Rank* r = rankOf(gtid >> 24);
    if (!r) {
      ++outside;
      continue;
    }
    RankBuilder& b = r->builder;
    const TimeNs start = st.int64(0);
    const int type = static_cast<int>(st.int64(2));
    const ThreadIndex thread = b.thread(static_cast<uint64_t>(gtid & kPidBits));
    const int64_t domainId = st.int64(4);
    auto& ids = domainIds[static_cast<size_t>(r - ranks_.data())];
    auto [d, added] = ids.try_emplace(domainId, 0);
    if (added && domainId != 0) {
      auto it = domains.find({r->key, domainId});
      d->second = b.intern(it == domains.end() ? "domain " + std::to_string(domainId) : it->second);
    }
    const StringId label = st.isNull(6) ? b.intern(st.text(5)) : name(*r, st, 6, 5);
    if (type == mark) {
      b.addMark(start, thread, d->second, label);
      continue;
    }
    // A range still open when the capture stopped ends with the capture.
    const TimeNs end = st.isNull(1) ? std::max(start, lastTime_) : st.int64(1);
    const RangeKind kind =
        type == startEnd || type == textStartEnd ? RangeKind::StartEnd : RangeKind::PushPop;
    b.addRange(start, end, thread, d->second, label, kind);
    if (b.trace().strings.at(d->second) != "NCCL") continue;
    const auto op = ncclApiOp(b.trace().strings.at(label));
    if (!op) continue;
    auto& n = b.trace().ncclCalls;
    const std::string_view json = st.text(7);
    n.start.push_back(start);
    n.end.push_back(end);
    n.thread.push_back(thread);
    n.op.push_back(*op);
    n.peer.push_back(static_cast<int32_t>(payloadNumber(json, "Peer rank")));
    n.count.push_back(0);
    n.dtype.push_back(0);
    n.bytes.push_back(
        static_cast<uint64_t>(std::max<int64_t>(0, payloadNumber(json, "Message size"))));
    n.comm.push_back(
        static_cast<uint64_t>(std::max<int64_t>(0, payloadNumber(json, "communicator"))));
    n.commRank.push_back(-1);
    n.commSize.push_back(-1);
    n.streamHandle.push_back(0);
    n.groupDepth.push_back(0);
    n.seq.push_back(0);
    n.id.push_back(n.start.size());
    n.source.push_back(NcclSource::Nvtx);
  }
  if (outside > 0) {
    out_.skipped["NVTX events of processes without GPU work"] += outside;
  }
}

void NsysReader::linkNcclKernels(Rank& r) {
  RankTrace& t = r.builder.trace();
  if (t.ncclCalls.size() == 0) return;
  // Calls that launch work (not group brackets or communicator setup), by thread and start.
  std::vector<uint32_t> calls;
  for (uint32_t i = 0; i < t.ncclCalls.size(); ++i) {
    const NcclOp op = t.ncclCalls.op[i];
    if (op != NcclOp::GroupStart && op != NcclOp::GroupEnd && op < NcclOp::CommInitRank) {
      calls.push_back(i);
    }
  }
  const auto& n = t.ncclCalls;
  std::sort(calls.begin(), calls.end(), [&](uint32_t a, uint32_t b) {
    return n.thread[a] != n.thread[b] ? n.thread[a] < n.thread[b] : n.start[a] < n.start[b];
  });
  std::unordered_map<uint32_t, size_t> launchOf;
  for (size_t i = 0; i < t.apiCalls.size(); ++i) launchOf[t.apiCalls.correlation[i]] = i;
  for (size_t k = 0; k < t.kernels.size(); ++k) {
    if (!isNcclKernelName(t.strings.at(t.kernels.name[k]))) continue;
    auto l = launchOf.find(t.kernels.correlation[k]);
    if (l == launchOf.end()) continue;
    const ThreadIndex thread = t.apiCalls.thread[l->second];
    const TimeNs at = t.apiCalls.start[l->second];
    auto it = std::upper_bound(calls.begin(), calls.end(), std::make_pair(thread, at),
                               [&](const std::pair<ThreadIndex, TimeNs>& v, uint32_t c) {
                                 return v.first != n.thread[c] ? v.first < n.thread[c]
                                                               : v.second < n.start[c];
                               });
    // The innermost call that holds the launch: NCCL nests its API ranges only shallowly.
    for (int steps = 0; it != calls.begin() && steps < 8; ++steps) {
      --it;
      if (n.thread[*it] != thread) break;
      if (n.start[*it] <= at && at <= n.end[*it]) {
        t.correlations.correlation.push_back(t.kernels.correlation[k]);
        t.correlations.externalKind.push_back(ExternalKind::NcclCall);
        t.correlations.externalId.push_back(n.id[*it]);
        break;
      }
    }
  }
}

}  // namespace bubblescope::traces::import
