// NCCL in nsys exports: a group's one fused kernel tied to every call of the group, a call's rank
// in its communicator from the communicator's creation, payloads kept as blobs (binaryData) read
// as their JSON would be, emit_nvtx's name decorations, and what an export without NCCL payloads
// (or with blobs that cannot be decoded) is told.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>

#include "tests/support/temp_dir.h"
#include "traces/errors.h"
#include "traces/import/nsys/nsys_import.h"
#include "traces/import/nsys/torch_nvtx_names.h"

namespace bubblescope::traces::import {
namespace {

using testing::TempDir;

constexpr int64_t kPid = 300;
const std::string kGtid = std::to_string((int64_t{1} << 48) + (kPid << 24) + kPid);
const std::string kGpid = std::to_string((int64_t{1} << 48) + (kPid << 24));

// One NVTX push/pop range of the process's main thread: in NCCL's domain (1) with a registered
// name and a JSON payload, or in the default domain with plain text.
struct Nvtx {
  TimeNs start, end;
  std::string name;
  std::string json;  // NCCL domain only; "" = no payload
  bool nccl = true;
  std::string blob = {};  // the payload's binaryData instead ("" = none)
};

std::string hex(const std::string& bytes) {
  static const char* digits = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : bytes) out += {digits[c >> 4], digits[c & 15]};
  return out;
}

// An export of one process: NCCL's domain (unless the capture began after it was made), the
// ranges, and an NCCL kernel per launch (correlation 100 + i, cuLaunchKernelEx at launches[i],
// the kernel 1 µs later).
std::filesystem::path makeExport(const TempDir& dir, const std::vector<Nvtx>& ranges,
                                 const std::vector<TimeNs>& launches, bool domainCreated = true) {
  std::string sql =
      "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER, end INTEGER, deviceId INTEGER,"
      " streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER,"
      " shortName INTEGER);"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INTEGER, end INTEGER, eventClass INTEGER,"
      " globalTid INTEGER, correlationId INTEGER, nameId INTEGER);"
      "CREATE TABLE NVTX_EVENTS(start INTEGER, end INTEGER, eventType INTEGER, text TEXT,"
      " globalTid INTEGER, textId INTEGER, domainId INTEGER, jsonText TEXT, binaryData TEXT);"
      // NCCL's send and receive schemas, as the public exports in shared/data hold them.
      "CREATE TABLE NVTX_PAYLOAD_SCHEMAS(domainId INTEGER, schemaId INTEGER, name TEXT,"
      " type INTEGER, flags INTEGER, numEntries INTEGER, payloadSize INTEGER, alignTo INTEGER);"
      "CREATE TABLE NVTX_PAYLOAD_SCHEMA_ENTRIES(domainId INTEGER, schemaId INTEGER,"
      " idx INTEGER, flags INTEGER, type INTEGER, name TEXT, description TEXT,"
      " arrayOrUnionDetail INTEGER, offset INTEGER);"
      "INSERT INTO NVTX_PAYLOAD_SCHEMAS VALUES (1, 16777225, NULL, 1, NULL, 3, 24, NULL),"
      " (1, 16777226, NULL, 1, NULL, 3, 24, NULL);"
      "INSERT INTO NVTX_PAYLOAD_SCHEMA_ENTRIES VALUES"
      " (1, 16777225, 0, NULL, 18, 'NCCL communicator ID', NULL, NULL, NULL),"
      " (1, 16777225, 1, NULL, 22, 'Message size [bytes]', NULL, NULL, 8),"
      " (1, 16777225, 2, NULL, 5, 'Peer rank', NULL, NULL, 16),"
      " (1, 16777226, 0, NULL, 18, 'NCCL communicator ID', NULL, NULL, NULL),"
      " (1, 16777226, 1, NULL, 22, 'Message size [bytes]', NULL, NULL, 8),"
      " (1, 16777226, 2, NULL, 5, 'Peer rank', NULL, NULL, 16);"
      "INSERT INTO StringIds VALUES (1, 'ncclDevKernel_SendRecv'), (2, 'cuLaunchKernelEx');";
  if (domainCreated) {
    sql +=
        "INSERT INTO NVTX_EVENTS VALUES (0, NULL, 75, 'NCCL', " + kGtid + ", NULL, 1, NULL, NULL);";
  }
  int64_t id = 10;
  for (const Nvtx& r : ranges) {
    const std::string json = r.json.empty() ? "NULL" : "'" + r.json + "'";
    const std::string blob = r.blob.empty() ? "NULL" : "X'" + hex(r.blob) + "'";
    if (r.nccl) {
      sql += "INSERT INTO StringIds VALUES (" + std::to_string(id) + ", '" + r.name + "');";
      sql += "INSERT INTO NVTX_EVENTS VALUES (" + std::to_string(r.start) + ", " +
             std::to_string(r.end) + ", 59, NULL, " + kGtid + ", " + std::to_string(id++) +
             ", 1, " + json + ", " + blob + ");";
    } else {
      sql += "INSERT INTO NVTX_EVENTS VALUES (" + std::to_string(r.start) + ", " +
             std::to_string(r.end) + ", 59, '" + r.name + "', " + kGtid + ", NULL, 0, NULL, NULL);";
    }
  }
  for (size_t i = 0; i < launches.size(); ++i) {
    const std::string corr = std::to_string(100 + i), at = std::to_string(launches[i]);
    sql += "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (" + at + ", " + at + " + 500, 1, " +
           kGtid + ", " + corr + ", 2);";
    sql += "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (" + at + " + 1000, " + at +
           " + 9000, 0, 13, " + corr + ", " + kGpid + ", 1, 1);";
  }
  const auto file = dir / "rank.sqlite";
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(file.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(db);
  return file;
}

std::string sendRecv(uint64_t comm, int peer) {
  return "{\"NCCL communicator ID\": " + std::to_string(comm) +
         ", \"Message size [bytes]\": 8388608, \"Peer rank\": " + std::to_string(peer) + "}";
}

// The call ids a kernel's correlation is tied to.
std::vector<uint64_t> tiedCalls(const RankTrace& t, uint32_t correlation) {
  std::vector<uint64_t> ids;
  for (size_t i = 0; i < t.correlations->size(); ++i) {
    if (t.correlations->correlation[i] == correlation &&
        t.correlations->externalKind[i] == ExternalKind::NcclCall) {
      ids.push_back(t.correlations->externalId[i]);
    }
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

TEST(NsysNccl, AGroupsFusedKernelServesEveryCallOfTheGroup) {
  TempDir dir;
  // batch_isend_irecv: send to and receive from peer 1 in one group; the kernel is launched in
  // ncclGroupEnd, after both calls' ranges closed. Then a lone send, launching inside its range.
  const uint64_t comm = 77;
  const auto file = makeExport(dir,
                               {{1000, 1500, "ncclGroupStart", ""},
                                {2000, 3000, "ncclSend", sendRecv(comm, 1)},
                                {3500, 4500, "ncclRecv", sendRecv(comm, 1)},
                                {5000, 9000, "ncclGroupEnd", ""},
                                {20000, 30000, "ncclSend", sendRecv(comm, 1)}},
                               {6000, 21000});
  const ImportedFile f = importNsysFile(file);
  ASSERT_EQ(f.ranks.size(), 1u);
  const RankTrace& t = f.ranks[0];
  ASSERT_EQ(t.ncclCalls->size(), 5u);
  // Calls keep their order: group start, send, recv, group end, the lone send.
  const auto& n = *t.ncclCalls;
  EXPECT_EQ(n.op[1], NcclOp::Send);
  EXPECT_EQ(n.op[2], NcclOp::Recv);
  EXPECT_EQ(tiedCalls(t, 100), (std::vector<uint64_t>{n.id[1], n.id[2]}));
  EXPECT_EQ(tiedCalls(t, 101), (std::vector<uint64_t>{n.id[4]}));
  EXPECT_EQ(n.groupDepth[1], 1);
  EXPECT_EQ(n.groupDepth[2], 1);
  EXPECT_EQ(n.groupDepth[4], 0);
  EXPECT_TRUE(f.notes.empty());
}

TEST(NsysNccl, NestedGroupsLaunchAtTheOutermostEnd) {
  TempDir dir;
  // torch 2.1 wrapped each call of a batch in a group of its own inside the batch's group.
  const auto file = makeExport(dir,
                               {{1000, 1500, "ncclGroupStart", ""},
                                {1600, 1700, "ncclGroupStart", ""},
                                {2000, 3000, "ncclSend", sendRecv(5, 0)},
                                {3100, 3200, "ncclGroupEnd", ""},
                                {3300, 3400, "ncclGroupStart", ""},
                                {3500, 4500, "ncclRecv", sendRecv(5, 0)},
                                {4600, 4700, "ncclGroupEnd", ""},
                                {5000, 9000, "ncclGroupEnd", ""}},
                               {6000});
  const ImportedFile f = importNsysFile(file);
  const RankTrace& t = f.ranks.at(0);
  EXPECT_EQ(tiedCalls(t, 100), (std::vector<uint64_t>{t.ncclCalls->id[2], t.ncclCalls->id[5]}));
  EXPECT_EQ(t.ncclCalls->groupDepth[2], 2);
}

TEST(NsysNccl, AGroupOverTwoCommunicatorsTiesItsKernelsToNoCall) {
  TempDir dir;
  const auto file = makeExport(dir,
                               {{1000, 1500, "ncclGroupStart", ""},
                                {2000, 3000, "ncclSend", sendRecv(5, 1)},
                                {3500, 4500, "ncclRecv", sendRecv(6, 1)},
                                {5000, 9000, "ncclGroupEnd", ""}},
                               {6000, 7000});
  const ImportedFile f = importNsysFile(file);
  EXPECT_EQ(f.ranks.at(0).correlations->size(), 0u);
  ASSERT_EQ(f.notes.size(), 1u);
  EXPECT_EQ(f.notes[0],
            "2 NCCL kernels were launched by groups over several communicators and are tied to "
            "none of their calls");
}

TEST(NsysNccl, ACommunicatorsCreationGivesItsCallsTheirRankInIt) {
  TempDir dir;
  // A communicator hash above 2^63, as half of them are.
  const uint64_t comm = 17'293'822'569'102'704'642ull;
  const auto file = makeExport(dir,
                               {{1000, 900000, "ncclCommInitRankConfig",
                                 "{\"NCCL communicator ID\": " + std::to_string(comm) +
                                     ", \"No. of ranks\": 2, \"Rank\": 1, \"CUDA device\": 3}"},
                                {1'000'000, 1'005'000, "ncclRecv", sendRecv(comm, 0)},
                                {2'000'000, 2'005'000, "ncclRecv", sendRecv(99, 0)}},
                               {1'001'000});
  const ImportedFile f = importNsysFile(file);
  const auto& n = *f.ranks.at(0).ncclCalls;
  ASSERT_EQ(n.size(), 3u);
  EXPECT_EQ(n.op[0], NcclOp::CommInitRank);
  EXPECT_EQ(n.comm[1], comm);
  EXPECT_EQ(n.peer[1], 0);
  EXPECT_EQ(n.commRank[1], 1);
  EXPECT_EQ(n.commSize[1], 2);
  EXPECT_EQ(n.bytes[1], 8388608u);
  // A communicator created before the capture: the call's own rank stays unknown.
  EXPECT_EQ(n.commRank[2], -1);
  EXPECT_EQ(n.commSize[2], -1);
}

TEST(NsysNccl, NcclsDomainIsKnownByItsRangesWhenTheCaptureMissedItsCreation) {
  TempDir dir;
  // As in the public 2-GPU exports: NCCL's ranges in domain 1 and no NvtxDomainCreate row.
  const auto file =
      makeExport(dir, {{1000, 1500, "ncclCommCount", ""}, {2000, 3000, "ncclSend", sendRecv(5, 1)}},
                 {2100}, false);
  const ImportedFile f = importNsysFile(file);
  const RankTrace& t = f.ranks.at(0);
  ASSERT_EQ(t.ncclCalls->size(), 1u);
  EXPECT_EQ(t.ncclCalls->op[0], NcclOp::Send);
  EXPECT_EQ(t.strings.at(t.ranges->domain[0]), "NCCL");
  EXPECT_EQ(tiedCalls(t, 100), (std::vector<uint64_t>{t.ncclCalls->id[0]}));
}

TEST(NsysNccl, CallsWithoutTheirPayloadSayHowToExportIt) {
  TempDir dir;
  const auto file = makeExport(dir,
                               {{1000, 1500, "ncclGroupStart", ""},
                                {2000, 3000, "ncclSend", ""},
                                {3500, 4500, "ncclRecv", ""},
                                {5000, 9000, "ncclGroupEnd", ""}},
                               {6000});
  const ImportedFile f = importNsysFile(file);
  ASSERT_EQ(f.notes.size(), 1u);
  EXPECT_EQ(f.notes[0],
            "2 NCCL calls have no payload (peer, size, communicator), so their kernels cannot be "
            "matched across ranks: export with 'nsys export --type sqlite --include-json=true' (or "
            "--include-blobs=true)");
  // Still one group of one (unknown) communicator: the kernel serves both calls.
  EXPECT_EQ(f.ranks.at(0).correlations->size(), 2u);
}

// NcclNvtxParamsSendRecv as --include-blobs=true keeps it: the schema id and size, then
// {uint64_t comm; size_t bytes; int peer;} (binaryData, nvtx_payload_blob.h).
std::string sendRecvBlob(uint64_t schema, uint64_t comm, uint64_t bytes, int32_t peer) {
  std::string b(40, '\0');
  auto put = [&](size_t at, uint64_t v, size_t n) {
    for (size_t i = 0; i < n; ++i) b[at + i] = static_cast<char>(v >> (8 * i));
  };
  put(0, schema, 8);
  put(8, 24, 8);
  put(16, comm, 8);
  put(24, bytes, 8);
  put(32, static_cast<uint32_t>(peer), 4);
  return b;
}

TEST(NsysNccl, BlobPayloadsGiveTheCallsWhatJsonWould) {
  TempDir dir;
  const uint64_t comm = 17'293'822'569'102'704'642ull;
  const auto file =
      makeExport(dir,
                 {{1000, 1500, "ncclGroupStart", ""},
                  {2000, 3000, "ncclSend", "", true, sendRecvBlob(16777225, comm, 4096, 1)},
                  {3500, 4500, "ncclRecv", "", true, sendRecvBlob(16777226, comm, 4096, 1)},
                  {5000, 9000, "ncclGroupEnd", ""}},
                 {6000});
  const ImportedFile f = importNsysFile(file);
  EXPECT_TRUE(f.notes.empty());
  const auto& n = *f.ranks.at(0).ncclCalls;
  ASSERT_EQ(n.size(), 4u);
  for (size_t i : {1, 2}) {
    EXPECT_EQ(n.comm[i], comm);
    EXPECT_EQ(n.bytes[i], 4096u);
    EXPECT_EQ(n.peer[i], 1);
  }
}

TEST(NsysNccl, ABadBlobLeavesItsCallWithoutPayloadAndSaysSo) {
  TempDir dir;
  const std::string good = sendRecvBlob(16777225, 5, 64, 1);
  const auto file = makeExport(dir,
                               {{2000, 3000, "ncclSend", "", true, good.substr(0, 30)},
                                {12000, 13000, "ncclSend", "", true, sendRecvBlob(77, 5, 64, 1)},
                                {22000, 23000, "ncclSend", "", true, good}},
                               {2100, 12100, 22100});
  const ImportedFile f = importNsysFile(file);
  const auto& n = *f.ranks.at(0).ncclCalls;
  ASSERT_EQ(n.size(), 3u);
  EXPECT_EQ(n.peer[0], -1);
  EXPECT_EQ(n.peer[1], -1);
  EXPECT_EQ(n.peer[2], 1);
  ASSERT_EQ(f.notes.size(), 2u);
  EXPECT_EQ(f.notes[0],
            "2 NCCL payloads in NVTX_EVENTS.binaryData could not be decoded (a schema "
            "NVTX_PAYLOAD_SCHEMAS does not hold, or too short): those calls keep no payload");
  EXPECT_EQ(f.notes[1].find("2 NCCL calls have no payload"), 0u) << f.notes[1];
}

TEST(NsysNccl, ANegativePeerInABlobIsRefusedNamingTheField) {
  TempDir dir;
  const auto file = makeExport(
      dir, {{2000, 3000, "ncclRecv", "", true, sendRecvBlob(16777226, 5, 64, -7)}}, {2100});
  try {
    importNsysFile(file);
    FAIL() << "the peer was accepted";
  } catch (const TraceError& e) {
    EXPECT_NE(std::string(e.what()).find("NVTX_EVENTS.binaryData \"Peer rank\" = -7 is out of "
                                         "range"),
              std::string::npos)
        << e.what();
  }
}

TEST(NsysNccl, EmitNvtxDecorationsLeaveTheRecordFunctionsName) {
  const std::pair<std::string_view, std::string_view> cases[] = {
      {"PP:0F1, op_id = 812", "PP:0F1"},
      {"aten::mm, seq = 33, op_id = 813", "aten::mm"},
      {"aten::addmm, seq = 4, op_id = 9, sizes = [[8, 4], [4, 2], []]", "aten::addmm"},
      {"aten::add, op_id = 10, sizes = [[2], [2]], input_op_ids = [(8, 0), (9, 0)]", "aten::add"},
      {"Optimizer.step#AdamW.step, op_id = 77", "Optimizer.step#AdamW.step"},
      // Not emit_nvtx's: left alone.
      {"F mb=3", "F mb=3"},
      {"step, op_id = x", "step, op_id = x"},
      {"loss, op_id = 3, extra", "loss, op_id = 3, extra"},
      {", op_id = 3", ", op_id = 3"},
      {"a, b, seq = 2", "a, b"},
  };
  for (const auto& [in, want] : cases) EXPECT_EQ(withoutEmitNvtxSuffix(in), want) << in;
}

TEST(NsysNccl, TorchRangesImportUnderTheirRecordFunctionName) {
  TempDir dir;
  const auto file = makeExport(
      dir, {{100, 9000, "PP:2B5, op_id = 4410", "", false}, {1000, 1500, "ncclSend", ""}}, {1200});
  const ImportedFile f = importNsysFile(file);
  const RankTrace& t = f.ranks.at(0);
  const auto it = std::find_if(t.ranges->name.begin(), t.ranges->name.end(),
                               [&](StringId s) { return t.strings.at(s) == "PP:2B5"; });
  EXPECT_NE(it, t.ranges->name.end());
}

}  // namespace
}  // namespace bubblescope::traces::import
