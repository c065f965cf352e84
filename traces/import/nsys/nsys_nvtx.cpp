// NVTX from an nsys export: ranges and marks with their domains, and NCCL's own ranges as NCCL
// calls with what their payloads say (nsys_nccl.cpp ties the calls to their kernels).
#include <algorithm>
#include <map>

#include "traces/format/field_range.h"
#include "traces/import/collectives.h"
#include "traces/import/nsys/nsys_reader.h"
#include "traces/import/nsys/nvtx_payload_blob.h"
#include "traces/import/nsys/torch_nvtx_names.h"
#include "traces/sqlite/integer_columns.h"

namespace bubblescope::traces::import {
namespace {

constexpr int64_t kPidBits = 0xFFFFFF;
using sqlite::integerOrNull;
using sqlite::requireIntegers;

// The payload schemas the export holds (with --include-blobs=true, or whenever NCCL registered
// them), for decoding binaryData.
PayloadSchemas payloadSchemas(sqlite::Database& db, const NsysSchema& schema,
                              const std::filesystem::path& file) {
  PayloadSchemas out;
  const char* s = "NVTX_PAYLOAD_SCHEMAS";
  const char* e = "NVTX_PAYLOAD_SCHEMA_ENTRIES";
  if (!schema.has(e, "schemaId") || !schema.has(e, "idx") || !schema.has(e, "type")) return out;
  if (schema.has(s, "schemaId") && schema.has(s, "payloadSize")) {
    auto st =
        db.prepare("SELECT " + schema.column(s, "domainId", "0") + ", schemaId, payloadSize FROM " +
                   s + " WHERE schemaId IS NOT NULL AND payloadSize IS NOT NULL");
    while (st.step()) {
      requireIntegers(st, file, s);
      out.addSchema(st.int64(0), static_cast<uint64_t>(st.int64(1)),
                    static_cast<uint64_t>(std::max<int64_t>(0, st.int64(2))));
    }
  }
  auto st = db.prepare("SELECT " + schema.column(e, "domainId", "0") + ", schemaId, idx, type, " +
                       "coalesce(" + schema.column(e, "flags", "0") + ", 0), " +
                       schema.column(e, "name", "''") + ", coalesce(" +
                       schema.column(e, "offset", "-1") + ", -1) FROM " + e +
                       " WHERE schemaId IS NOT NULL AND idx IS NOT NULL AND type IS NOT NULL");
  while (st.step()) {
    requireIntegers(st, file, e, 0, 5);
    requireIntegers(st, file, e, 6, 7);
    PayloadEntryRow row;
    row.type = static_cast<uint64_t>(st.int64(3));
    row.flags = static_cast<uint64_t>(st.int64(4));
    row.name = std::string(st.text(5));
    row.offset = st.int64(6);
    out.addEntry(st.int64(0), static_cast<uint64_t>(st.int64(1)), st.int64(2), row);
  }
  return out;
}

}  // namespace

void NsysReader::readNvtx() {
  const char* t = "NVTX_EVENTS";
  if (!schema_.has(t, "eventType") || !schema_.has(t, "globalTid")) return;
  const int64_t pushPop = schema_.enumId("ENUM_NSYS_EVENT_TYPE", "NvtxPushPopRange", 59);
  const int64_t startEnd = schema_.enumId("ENUM_NSYS_EVENT_TYPE", "NvtxStartEndRange", 60);
  const int64_t mark = schema_.enumId("ENUM_NSYS_EVENT_TYPE", "NvtxMark", 34);
  const int64_t domainCreate = schema_.enumId("ENUM_NSYS_EVENT_TYPE", "NvtxDomainCreate", 75);
  const int64_t textPushPop = schema_.enumId("ENUM_NSYS_EVENT_TYPE", "NvtxtPushPopRange", 70);
  const int64_t textStartEnd = schema_.enumId("ENUM_NSYS_EVENT_TYPE", "NvtxtStartEndRange", 71);
  const bool registered = schema_.has(t, "textId") && schema_.has("StringIds");
  const std::string text =
      registered ? "coalesce(text, (SELECT value FROM StringIds WHERE id = textId))" : "text";
  const std::string domain = schema_.column(t, "domainId", "0");

  // Domain names, per process: a domain id means nothing outside the process that created it.
  std::map<std::pair<int64_t, int64_t>, std::string> domains;
  {
    auto st = db_.prepare("SELECT globalTid, " + domain + ", " + text + " FROM " + t +
                          " WHERE eventType = " + std::to_string(domainCreate));
    while (st.step()) {
      requireIntegers(st, file_, t, 0, 1);
      const int64_t domainId = integerOrNull(st, 1, file_, t).value_or(0);
      domains[{st.int64(0) >> 24, domainId}] = std::string(st.text(2));
    }
  }

  auto st = db_.prepare("SELECT start, end, eventType, globalTid, " + domain + ", " + text + ", " +
                        (registered ? "textId" : "NULL") + ", " + schema_.column(t, "jsonText") +
                        ", " + schema_.column(t, "binaryData") + " FROM " + t +
                        " WHERE eventType IN (" + std::to_string(pushPop) + ", " +
                        std::to_string(startEnd) + ", " + std::to_string(mark) + ", " +
                        std::to_string(textPushPop) + ", " + std::to_string(textStartEnd) + ")");
  std::vector<std::map<int64_t, StringId>> domainIds(ranks_.size());
  const PayloadSchemas schemas = payloadSchemas(db_, schema_, file_);
  uint64_t outside = 0, withoutPayload = 0, undecoded = 0;
  while (st.step()) {
    requireIntegers(st, file_, t, 0, 1);
    requireIntegers(st, file_, t, 2, 4);
    const std::optional<int64_t> ended = integerOrNull(st, 1, file_, t);  // NULL: still open
    const int64_t domainId = integerOrNull(st, 4, file_, t).value_or(0);
    integerOrNull(st, 6, file_, t);  // textId: a StringIds id, or NULL for inline text
    const int64_t gtid = st.int64(3);
    Rank* r = rankOf(gtid >> 24);
    if (!r) {
      ++outside;
      continue;
    }
    RankBuilder& b = r->builder;
    const TimeNs start = st.int64(0);
    const int64_t type = st.int64(2);
    const ThreadIndex thread = b.thread(static_cast<uint64_t>(gtid & kPidBits));
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
    const TimeNs end = ended.value_or(std::max(start, lastTime_));
    const RangeKind kind =
        type == startEnd || type == textStartEnd ? RangeKind::StartEnd : RangeKind::PushPop;
    b.addRange(start, end, thread, d->second, label, kind);
    if (b.trace().strings.at(d->second) != "NCCL") continue;
    const auto op = ncclApiOp(b.trace().strings.at(label));
    if (!op) continue;
    NcclCalls& calls = b.trace().ncclCalls;
    // Only a communicator's creation says which rank this process is in it, and of how many.
    const bool init = *op == NcclOp::CommInitRank || *op == NcclOp::CommSplit;
    const PayloadNeeds needs{movesData(*op), isPointToPoint(*op), init};
    const std::string_view json = st.text(7);
    NcclPayload payload = ncclPayloadFromJson(json, needs);
    bool said = !json.empty();
    const char* column = "NVTX_EVENTS.jsonText";
    if (!said && !st.isNull(8)) {
      if (auto p = schemas.decode(domainId, st.blob(8), needs)) {
        payload = *p;
        said = true;
        column = "NVTX_EVENTS.binaryData";
      } else {
        ++undecoded;
      }
    }
    // Sends, receives and collectives need their payload.
    if (movesData(*op) && !said) ++withoutPayload;
    // Ranks in a payload are range-checked: a cast would wrap 2^32 + 3 to peer 3.
    auto rank = [&](int64_t value, const char* field) {
      if (value >= -1 && value <= INT32_MAX) return static_cast<int32_t>(value);
      return fieldInRange<int32_t>(file_, std::string(column) + " \"" + field + "\"", value, -1,
                                   INT32_MAX);  // throws, naming the field
    };
    NcclCall n;
    n.start = start;
    n.end = end;
    n.thread = thread;
    n.op = *op;
    n.peer = rank(payload.peer, "Peer rank");
    n.bytes = static_cast<uint64_t>(std::max<int64_t>(0, payload.bytes));
    n.comm = payload.comm;
    n.commRank = init ? rank(payload.rank, "Rank") : -1;
    n.commSize = init ? rank(payload.ranks, "No. of ranks") : -1;
    n.id = calls.size() + 1;
    n.source = NcclSource::Nvtx;
    calls.push(n);
  }
  if (outside > 0) {
    out_.skipped["NVTX events of processes without GPU work"] += outside;
  }
  if (undecoded > 0) {
    out_.notes.push_back(std::to_string(undecoded) +
                         " NCCL payloads in NVTX_EVENTS.binaryData could not be decoded (a schema "
                         "NVTX_PAYLOAD_SCHEMAS does not hold, or too short): those calls keep no "
                         "payload");
  }
  if (withoutPayload > 0) {
    out_.notes.push_back(std::to_string(withoutPayload) +
                         " NCCL calls have no payload (peer, size, communicator), so their kernels "
                         "cannot be matched across ranks: export with 'nsys export --type sqlite "
                         "--include-json=true' (or --include-blobs=true)");
  }
}

}  // namespace bubblescope::traces::import
