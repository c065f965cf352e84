// NCCL in nsys exports: a group's one fused kernel tied to every call of the group, a call's rank
// in its communicator from the communicator's creation, emit_nvtx's name decorations, and what
// an export without NCCL payloads is told.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>

#include "tests/support/temp_dir.h"
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
};

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
      " globalTid INTEGER, textId INTEGER, domainId INTEGER, jsonText TEXT);"
      "INSERT INTO StringIds VALUES (1, 'ncclDevKernel_SendRecv'), (2, 'cuLaunchKernelEx');";
  if (domainCreated) {
    sql += "INSERT INTO NVTX_EVENTS VALUES (0, NULL, 75, 'NCCL', " + kGtid + ", NULL, 1, NULL);";
  }
  int64_t id = 10;
  for (const Nvtx& r : ranges) {
    const std::string json = r.json.empty() ? "NULL" : "'" + r.json + "'";
    if (r.nccl) {
      sql += "INSERT INTO StringIds VALUES (" + std::to_string(id) + ", '" + r.name + "');";
      sql += "INSERT INTO NVTX_EVENTS VALUES (" + std::to_string(r.start) + ", " +
             std::to_string(r.end) + ", 59, NULL, " + kGtid + ", " + std::to_string(id++) +
             ", 1, " + json + ");";
    } else {
      sql += "INSERT INTO NVTX_EVENTS VALUES (" + std::to_string(r.start) + ", " +
             std::to_string(r.end) + ", 59, '" + r.name + "', " + kGtid + ", NULL, 0, NULL);";
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
  for (size_t i = 0; i < t.correlations.size(); ++i) {
    if (t.correlations.correlation[i] == correlation &&
        t.correlations.externalKind[i] == ExternalKind::NcclCall) {
      ids.push_back(t.correlations.externalId[i]);
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
  ASSERT_EQ(t.ncclCalls.size(), 5u);
  // Calls keep their order: group start, send, recv, group end, the lone send.
  const auto& n = t.ncclCalls;
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
  EXPECT_EQ(tiedCalls(t, 100), (std::vector<uint64_t>{t.ncclCalls.id[2], t.ncclCalls.id[5]}));
  EXPECT_EQ(t.ncclCalls.groupDepth[2], 2);
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
  EXPECT_EQ(f.ranks.at(0).correlations.size(), 0u);
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
  const auto& n = f.ranks.at(0).ncclCalls;
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
  ASSERT_EQ(t.ncclCalls.size(), 1u);
  EXPECT_EQ(t.ncclCalls.op[0], NcclOp::Send);
  EXPECT_EQ(t.strings.at(t.ranges.domain[0]), "NCCL");
  EXPECT_EQ(tiedCalls(t, 100), (std::vector<uint64_t>{t.ncclCalls.id[0]}));
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
            "matched across ranks: export with 'nsys export --type sqlite --include-json=true'");
  // Still one group of one (unknown) communicator: the kernel serves both calls.
  EXPECT_EQ(f.ranks.at(0).correlations.size(), 2u);
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
  const auto it = std::find_if(t.ranges.name.begin(), t.ranges.name.end(),
                               [&](StringId s) { return t.strings.at(s) == "PP:2B5"; });
  EXPECT_NE(it, t.ranges.name.end());
}

}  // namespace
}  // namespace bubblescope::traces::import
