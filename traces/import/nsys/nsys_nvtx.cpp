// NVTX from an nsys export: ranges and marks with their domains, and NCCL's own ranges as NCCL
// calls with what their payloads say (nsys_nccl.cpp ties the calls to their kernels).
#include <algorithm>
#include <charconv>
#include <map>

#include "traces/format/field_range.h"
#include "traces/import/collectives.h"
#include "traces/import/nsys/nsys_reader.h"
#include "traces/import/nsys/torch_nvtx_names.h"

namespace bubblescope::traces::import {
namespace {

constexpr int64_t kPidBits = 0xFFFFFF;

// Where the value of `"<key>":` starts in an NVTX payload's JSON rendering, or npos.
size_t payloadValue(std::string_view json, std::string_view key) {
  const size_t k = json.find(key);
  if (k == std::string_view::npos) return k;
  size_t p = json.find(':', k + key.size());
  if (p == std::string_view::npos) return p;
  ++p;
  while (p < json.size() && (json[p] == ' ' || json[p] == '"')) ++p;
  return p;
}

// A signed number in the payload, or -1.
int64_t payloadNumber(std::string_view json, std::string_view key) {
  const size_t p = payloadValue(json, key);
  int64_t v = -1;
  if (p != std::string_view::npos) std::from_chars(json.data() + p, json.data() + json.size(), v);
  return v;
}

// An unsigned 64-bit number (a communicator hash uses all 64 bits), or 0.
uint64_t payloadUnsigned(std::string_view json, std::string_view key) {
  const size_t p = payloadValue(json, key);
  uint64_t v = 0;
  if (p != std::string_view::npos) std::from_chars(json.data() + p, json.data() + json.size(), v);
  return v;
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
  uint64_t outside = 0, withoutPayload = 0;
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
    // torch's emit_nvtx decorates record_function names: the model keeps the name alone.
    const StringId label =
        st.isNull(6) ? b.intern(withoutEmitNvtxSuffix(st.text(5))) : name(*r, st, 6, 5);
    auto& ids = domainIds[static_cast<size_t>(r - ranks_.data())];
    auto [d, added] = ids.try_emplace(domainId, 0);
    if (added && domainId != 0) {
      auto it = domains.find({r->key, domainId});
      std::string domainName =
          it == domains.end() ? "domain " + std::to_string(domainId) : it->second;
      // A capture that began after NCCL made its domain has no NvtxDomainCreate row for it, but
      // NCCL's ranges name themselves: registered strings, its API functions' names.
      if (it == domains.end() && !st.isNull(6) && b.trace().strings.at(label).starts_with("nccl")) {
        domainName = "NCCL";
      }
      d->second = b.intern(domainName);
    }
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
    NcclCalls& calls = b.trace().ncclCalls;
    const std::string_view json = st.text(7);
    // Sends, receives and collectives need their payload.
    if (movesData(*op) && json.empty()) ++withoutPayload;
    // Ranks in a payload are range-checked: a cast would wrap 2^32 + 3 to peer 3.
    auto rank = [&](std::string_view key, const char* field) {
      return fieldInRange<int32_t>(file_, field, payloadNumber(json, key), -1, INT32_MAX);
    };
    NcclCall n;
    n.start = start;
    n.end = end;
    n.thread = thread;
    n.op = *op;
    n.peer = rank("Peer rank", "NVTX_EVENTS.jsonText \"Peer rank\"");
    n.bytes = static_cast<uint64_t>(std::max<int64_t>(0, payloadNumber(json, "Message size")));
    n.comm = payloadUnsigned(json, "communicator");
    // Only a communicator's creation says which rank this process is in it, and of how many.
    const bool init = *op == NcclOp::CommInitRank || *op == NcclOp::CommSplit;
    n.commRank = init ? rank("\"Rank\"", "NVTX_EVENTS.jsonText \"Rank\"") : -1;
    n.commSize = init ? rank("No. of ranks", "NVTX_EVENTS.jsonText \"No. of ranks\"") : -1;
    n.id = calls.size() + 1;
    n.source = NcclSource::Nvtx;
    calls.push(n);
  }
  if (outside > 0) {
    out_.skipped["NVTX events of processes without GPU work"] += outside;
  }
  if (withoutPayload > 0) {
    out_.notes.push_back(std::to_string(withoutPayload) +
                         " NCCL calls have no payload (peer, size, communicator), so their kernels "
                         "cannot be matched across ranks: export with 'nsys export --type sqlite "
                         "--include-json=true'");
  }
}

}  // namespace bubblescope::traces::import
