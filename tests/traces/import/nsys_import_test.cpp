// Nsight Systems exports: the public 2-GPU fixture (values read with sqlite3) and small exports
// written here for what it lacks (NCCL's NVTX domain, one file per rank, no GPU tables).
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <unordered_set>

#include "tests/support/temp_dir.h"
#include "tests/traces/import/shared_data.h"
#include "traces/errors.h"
#include "traces/import/nsys/nsys_import.h"
#include "traces/import/run_import.h"

namespace bubblescope::traces::import {
namespace {

using testing::sharedData;
using testing::TempDir;

constexpr TimeNs kUtcAtSessionStart = 1779630014975716426;  // TARGET_INFO_SESSION_START_TIME
constexpr TimeNs kSessionStart = 35255823190;               // systemClockNs

void makeDb(const std::filesystem::path& file, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(file.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
  EXPECT_EQ(rc, SQLITE_OK) << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(db);
}

// A one-process export: a kernel launched inside an NCCL-domain ncclSend range.
std::string ncclExport(int pid, int device) {
  const std::string gpid = std::to_string((int64_t{1} << 48) + (int64_t{pid} << 24));
  const std::string gtid = std::to_string((int64_t{1} << 48) + (int64_t{pid} << 24) + pid);
  return "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);"
         "INSERT INTO StringIds VALUES (1, "
         "'ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)'),"
         " (2, 'cudaLaunchKernel_v7000'), (3, 'ncclSend'), (4, 'python3');"
         "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER, end INTEGER, deviceId INTEGER,"
         " streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER,"
         " shortName INTEGER);"
         "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (2000, 9000, " +
         std::to_string(device) + ", 21, 55, " + gpid +
         ", 1, 1);"
         "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INTEGER, end INTEGER, eventClass INTEGER,"
         " globalTid INTEGER, correlationId INTEGER, nameId INTEGER);"
         "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (1100, 1200, 0, " +
         gtid +
         ", 55, 2);"
         "CREATE TABLE NVTX_EVENTS(start INTEGER, end INTEGER, eventType INTEGER, text TEXT,"
         " globalTid INTEGER, textId INTEGER, domainId INTEGER, jsonText TEXT);"
         "INSERT INTO NVTX_EVENTS VALUES (500, NULL, 75, 'NCCL', " +
         gtid +
         ", NULL, 1, NULL),"
         " (1000, 1500, 59, NULL, " +
         gtid +
         ", 3, 1,"
         " '{\"NCCL communicator ID\": 42, \"Message size [bytes]\": 4096, \"Peer rank\": 3}'),"
         " (800, 1600, 59, 'PP:0F0', " +
         gtid +
         ", NULL, 0, NULL);"
         "CREATE TABLE ThreadNames(nameId INTEGER, priority INTEGER, globalTid INTEGER);"
         "INSERT INTO ThreadNames VALUES (4, 10, " +
         gtid +
         ");"
         "CREATE TABLE TARGET_INFO_SESSION_START_TIME(utcEpochNs INTEGER, utcTime TEXT,"
         " localTime TEXT, systemClockNs INTEGER);"
         "INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (1700000000000000000, '', '', 0);";
}

TEST(NsysImport, TheTwoGpuFixtureBecomesTwoRanks) {
  SKIP_WITHOUT_SHARED_DATA();
  const ImportedFile f = importNsysFile(sharedData("nsys/nsys-ai-h100-2gpu-fsdp.sqlite"));
  EXPECT_EQ(f.format, "nsys");
  ASSERT_EQ(f.ranks.size(), 2u);
  for (size_t r = 0; r < 2; ++r) {
    const RankTrace& t = f.ranks[r];
    EXPECT_EQ(t.meta.source, "nsys");
    EXPECT_EQ(t.meta.pid, 111 + static_cast<int64_t>(r));
    EXPECT_EQ(t.meta.extra.at("nsys.device"), std::to_string(r));
    EXPECT_EQ(t.meta.extra.at("nsys.schema_version"), "3.25.0");
    EXPECT_EQ(t.meta.host, "modal");
    EXPECT_EQ(t.kernels->size(), 1721u);
    EXPECT_EQ(t.memcpys->size(), 452u);
    EXPECT_EQ(t.memsets->size(), 11u);
    EXPECT_EQ(t.apiCalls->size(), 2898u);
    EXPECT_EQ(t.ranges->size(), 8391u);
    EXPECT_EQ(t.devices.size(), 1u);
    for (StreamIndex s : t.kernels->stream) ASSERT_EQ(t.streams.at(s).device, r);
  }
  // pid 111's first kernel, with its name from StringIds and its time on the epoch.
  const RankTrace& t0 = f.ranks[0];
  EXPECT_EQ(t0.kernels->start[0], kUtcAtSessionStart + 155360295935 - kSessionStart);
  EXPECT_EQ(t0.kernels->end[0] - t0.kernels->start[0], 155360299999 - 155360295935);
  EXPECT_EQ(t0.kernels->correlation[0], 1438831u);
  EXPECT_TRUE(
      t0.strings.at(t0.kernels->name[0]).starts_with("void at::native::vectorized_gather_kernel<"));
  // Launch <-> kernel within each process: 1632 kernels of the window have their launch in it
  // (11 more would match across processes, where correlation ids repeat).
  size_t joined = 0;
  for (const RankTrace& t : f.ranks) {
    std::unordered_set<uint32_t> launches(t.apiCalls->correlation.begin(),
                                          t.apiCalls->correlation.end());
    for (uint32_t c : t.kernels->correlation) joined += launches.count(c);
  }
  EXPECT_EQ(joined, 1632u);
  // pid 112 launched correlation 1491466 from its main thread with cudaLaunchKernel.
  const RankTrace& t1 = f.ranks[1];
  auto it = std::find(t1.apiCalls->correlation.begin(), t1.apiCalls->correlation.end(), 1491466u);
  ASSERT_NE(it, t1.apiCalls->correlation.end());
  const size_t i = static_cast<size_t>(it - t1.apiCalls->correlation.begin());
  EXPECT_EQ(t1.strings.at(t1.apiCalls->name[i]), "cudaLaunchKernel");
  EXPECT_EQ(t1.threads.at(t1.apiCalls->thread[i]).tid, 112u);
  EXPECT_EQ(t1.strings.at(t1.threads.at(t1.apiCalls->thread[i]).name), "python3");
  EXPECT_EQ(t1.apiCalls->start[i], kUtcAtSessionStart + 155357775617 - kSessionStart);
  // emit_nvtx op ranges, in the default domain.
  EXPECT_EQ(t0.strings.at(t0.ranges->domain[0]), "");
}

TEST(NsysImport, NcclDomainRangesBecomeCallsTiedToTheirKernels) {
  TempDir dir;
  makeDb(dir / "rank.sqlite", ncclExport(4242, 0));
  const ImportedFile f = importNsysFile(dir / "rank.sqlite");
  ASSERT_EQ(f.ranks.size(), 1u);
  const RankTrace& t = f.ranks[0];
  ASSERT_EQ(t.ncclCalls->size(), 1u);
  EXPECT_EQ(t.ncclCalls->op[0], NcclOp::Send);
  EXPECT_EQ(t.ncclCalls->peer[0], 3);
  EXPECT_EQ(t.ncclCalls->bytes[0], 4096u);
  EXPECT_EQ(t.ncclCalls->comm[0], 42u);
  EXPECT_EQ(t.ncclCalls->source[0], NcclSource::Nvtx);
  EXPECT_EQ(t.ncclCalls->start[0], 1700000000000000000 + 1000);
  ASSERT_EQ(t.correlations->size(), 1u);
  EXPECT_EQ(t.correlations->correlation[0], 55u);
  EXPECT_EQ(t.correlations->externalId[0], t.ncclCalls->id[0]);
  // The NCCL range keeps its domain; the user's range is in the default one.
  ASSERT_EQ(t.ranges->size(), 2u);
  EXPECT_EQ(t.strings.at(t.ranges->name[0]), "PP:0F0");
  EXPECT_EQ(t.strings.at(t.ranges->domain[0]), "");
  EXPECT_EQ(t.strings.at(t.ranges->domain[1]), "NCCL");
  EXPECT_EQ(t.strings.at(t.apiCalls->name[0]), "cudaLaunchKernel");
}

TEST(NsysImport, OneExportPerRankIsNumberedInFileOrder) {
  TempDir dir;
  makeDb(dir / "report_rank1.sqlite", ncclExport(20, 0));
  makeDb(dir / "report_rank0.sqlite", ncclExport(10, 0));
  Inputs in = resolveInputs({dir.path()});
  EXPECT_EQ(in.format, InputFormat::Nsys);
  const ImportedRun r = importRun(in);
  ASSERT_EQ(r.run.ranks.size(), 2u);
  EXPECT_EQ(r.run.ranks[0].meta.pid, 10);
  EXPECT_EQ(r.run.ranks[0].meta.rank, 0);
  EXPECT_EQ(r.run.ranks[1].meta.pid, 20);
  EXPECT_EQ(r.run.ranks[1].meta.worldSize, 2);
}

// --cuda-memory-usage=true: the process's device allocations less releases, per device, from the
// start of capture; pinned host memory is not the device's; a release of memory allocated before
// the capture holds the sum at zero; another process's memory is not this rank's. The device's
// capacity from TARGET_INFO_GPU.
TEST(NsysImport, MemoryUsageEventsBecomeTheProcesssReserve) {
  TempDir dir;
  const std::string gpid = std::to_string((int64_t{1} << 48) + (int64_t{10} << 24));
  const std::string other = std::to_string((int64_t{1} << 48) + (int64_t{99} << 24));
  makeDb(
      dir / "report.sqlite",
      ncclExport(10, 0) +
          "CREATE TABLE ENUM_CUDA_MEM_KIND(id INTEGER PRIMARY KEY, name TEXT, label TEXT);"
          "INSERT INTO ENUM_CUDA_MEM_KIND VALUES (1, 'CUDA_MEMOPR_MEMORY_KIND_PINNED', 'Pinned'),"
          " (2, 'CUDA_MEMOPR_MEMORY_KIND_DEVICE', 'Device');"
          "CREATE TABLE ENUM_CUDA_DEV_MEM_EVENT_OPER(id INTEGER PRIMARY KEY, name TEXT,"
          " label TEXT);"
          "INSERT INTO ENUM_CUDA_DEV_MEM_EVENT_OPER VALUES"
          " (0, 'CUDA_DEV_MEM_EVENT_OPR_ALLOCATION', 'Allocation'),"
          " (1, 'CUDA_DEV_MEM_EVENT_OPR_DEALLOCATION', 'Deallocation');"
          "CREATE TABLE CUDA_GPU_MEMORY_USAGE_EVENTS(start INTEGER, globalPid INTEGER,"
          " deviceId INTEGER, contextId INTEGER, address INTEGER, pc INTEGER, bytes INTEGER,"
          " memKind INTEGER, memoryOperationType INTEGER);"
          "INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS VALUES"
          " (100, " +
          gpid +
          ", 0, 1, 4096, 0, 500, 2, 1),"  // freed before any allocation
          " (200, " +
          gpid +
          ", 0, 1, 8192, 0, 3000, 2, 0),"
          " (250, " +
          gpid +
          ", 0, 1, 9000, 0, 77, 1, 0),"  // pinned host memory
          " (260, " +
          other +
          ", 0, 1, 9000, 0, 5000, 2, 0),"  // another process
          " (300, " +
          gpid +
          ", 0, 1, 16384, 0, 1000, 2, 0),"
          " (400, " +
          gpid +
          ", 0, 1, 8192, 0, 3000, 2, 1);"
          "CREATE TABLE TARGET_INFO_GPU(vmId INTEGER, id INTEGER, name TEXT, uuid TEXT,"
          " totalMemory INTEGER);"
          "INSERT INTO TARGET_INFO_GPU VALUES (1, 0, 'NVIDIA H100 80GB HBM3', 'GPU-1',"
          " 85045477376);");
  const ImportedFile f = importNsysFile(dir / "report.sqlite");
  ASSERT_EQ(f.ranks.size(), 1u);
  const RankTrace& t = f.ranks[0];
  constexpr TimeNs kEpoch = 1700000000000000000;
  EXPECT_EQ(t.memory->start,
            (std::vector<TimeNs>{kEpoch + 100, kEpoch + 200, kEpoch + 300, kEpoch + 400}));
  EXPECT_EQ(t.memory->reserved, (std::vector<int64_t>{0, 3000, 4000, 1000}));
  EXPECT_EQ(t.memory->allocated[0], kBytesUnknown);
  ASSERT_EQ(t.devices.size(), 1u);
  EXPECT_EQ(t.devices[0].memoryBytes, 85045477376u);
}

TEST(NsysImport, AnExportWithoutGpuTablesIsAnError) {
  TempDir dir;
  makeDb(dir / "cpu.sqlite",
         "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);"
         "CREATE TABLE NVTX_EVENTS(start INTEGER, end INTEGER, eventType INTEGER, text TEXT,"
         " globalTid INTEGER);"
         "INSERT INTO NVTX_EVENTS VALUES (1, 2, 59, 'x', 1);");
  try {
    importNsysFile(dir / "cpu.sqlite");
    FAIL();
  } catch (const TraceError& e) {
    EXPECT_EQ(std::string(e.what()),
              (dir / "cpu.sqlite").string() +
                  ": an Nsight Systems export without GPU activity (no kernels, memcpys or "
                  "memsets): record with 'nsys profile --trace=cuda,nvtx' and export again");
  }
}

// MPI_RANKS.rank was cast to int: 2^32 + 1 was read as rank 1.
TEST(NsysImport, MpiRankBeyondIntIsRefusedNamingTheField) {
  TempDir dir;
  const std::string gtid = std::to_string((int64_t{1} << 48) + (int64_t{7} << 24) + 7);
  makeDb(dir / "rank.sqlite", ncclExport(7, 0) +
                                  "CREATE TABLE MPI_RANKS(globalTid INTEGER, rank INTEGER);"
                                  "INSERT INTO MPI_RANKS VALUES (" +
                                  gtid + ", 4294967297);");
  try {
    importNsysFile(dir / "rank.sqlite");
    FAIL() << "the rank was accepted";
  } catch (const TraceError& e) {
    EXPECT_EQ(std::string(e.what()), (dir / "rank.sqlite").string() +
                                         ": MPI_RANKS.rank = 4294967297 is out of range (0 to "
                                         "2147483647)");
  }
}

TEST(NsysImport, MpiRankInRangeIsTheRanksNumber) {
  TempDir dir;
  const std::string gtid = std::to_string((int64_t{1} << 48) + (int64_t{7} << 24) + 7);
  makeDb(dir / "rank.sqlite", ncclExport(7, 0) +
                                  "CREATE TABLE MPI_RANKS(globalTid INTEGER, rank INTEGER);"
                                  "INSERT INTO MPI_RANKS VALUES (" +
                                  gtid + ", 5);");
  EXPECT_EQ(importNsysFile(dir / "rank.sqlite").ranks.at(0).meta.rank, 5);
}

TEST(NsysImport, PeerRankInAnNcclPayloadBeyondIntIsRefused) {
  TempDir dir;
  std::string sql = ncclExport(7, 0);
  sql.replace(sql.find("\"Peer rank\": 3}"), std::string("\"Peer rank\": 3}").size(),
              "\"Peer rank\": 4294967299}");
  makeDb(dir / "rank.sqlite", sql);
  try {
    importNsysFile(dir / "rank.sqlite");
    FAIL() << "the peer was accepted";
  } catch (const TraceError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "NVTX_EVENTS.jsonText \"Peer rank\" = 4294967299 is out of range (-1 to "),
              std::string::npos)
        << e.what();
  }
}

// A one-process export with a copy and MPI_RANKS (rank 0), to spoil one field at a time.
std::string fullExport() {
  const std::string gpid = std::to_string((int64_t{1} << 48) + (int64_t{7} << 24));
  const std::string gtid = std::to_string((int64_t{1} << 48) + (int64_t{7} << 24) + 7);
  return ncclExport(7, 0) +
         "CREATE TABLE MPI_RANKS(globalTid INTEGER, rank INTEGER);"
         "INSERT INTO MPI_RANKS VALUES (" +
         gtid +
         ", 0);"
         "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY(start INTEGER, end INTEGER, deviceId INTEGER,"
         " streamId INTEGER, correlationId INTEGER, globalPid INTEGER, bytes INTEGER,"
         " copyKind INTEGER);"
         "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (3000, 3500, 0, 21, 56, " +
         gpid + ", 4096, 1);";
}

// SQLite's int64() read NULL, text and reals as 0 or a truncation: start = 'abc' or NULL became
// the capture's start, 1.5 became 1, correlationId = 'corr' became 0, MPI_RANKS.rank = 'zero' a
// rank. Every integer the importer reads is an integer in range, or the file is refused naming
// the column.
TEST(NsysImport, NonIntegerOrOutOfRangeFieldsAreRefusedNamingTheColumn) {
  struct Case {
    const char* update;
    const char* says;
  };
  const Case cases[] = {
      {"UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = 'abc'",
       "corrupt: CUPTI_ACTIVITY_KIND_KERNEL.start holds text, not an integer"},
      {"UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = NULL",
       "corrupt: CUPTI_ACTIVITY_KIND_KERNEL.start holds NULL, not an integer"},
      {"UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET end = 1.5",
       "corrupt: CUPTI_ACTIVITY_KIND_KERNEL.end holds a real number, not an integer"},
      {"UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET correlationId = 'corr'",
       "corrupt: CUPTI_ACTIVITY_KIND_KERNEL.correlationId holds text, not an integer"},
      {"UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET globalPid = 'p'",
       "corrupt: CUPTI_ACTIVITY_KIND_KERNEL.globalPid holds text, not an integer"},
      {"UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET streamId = -5",
       "CUPTI_ACTIVITY_KIND_KERNEL.streamId = -5 is out of range (0 to 9223372036854775807)"},
      {"UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET correlationId = 4294967297",
       "CUPTI_ACTIVITY_KIND_KERNEL.correlationId = 4294967297 is out of range (0 to 4294967295)"},
      {"UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET bytes = -1",
       "CUPTI_ACTIVITY_KIND_MEMCPY.bytes = -1 is out of range (0 to 9223372036854775807)"},
      {"UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET bytes = 'big'",
       "corrupt: CUPTI_ACTIVITY_KIND_MEMCPY.bytes holds text, not an integer"},
      {"UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET deviceId = 2147483648.5",
       "corrupt: CUPTI_ACTIVITY_KIND_MEMCPY.deviceId holds a real number, not an integer"},
      {"UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET correlationId = 'corr'",
       "corrupt: CUPTI_ACTIVITY_KIND_RUNTIME.correlationId holds text, not an integer"},
      {"UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET start = NULL",
       "corrupt: CUPTI_ACTIVITY_KIND_RUNTIME.start holds NULL, not an integer"},
      {"UPDATE MPI_RANKS SET rank = 'zero'", "corrupt: MPI_RANKS.rank holds text, not an integer"},
      {"UPDATE MPI_RANKS SET rank = 1.5", "corrupt: MPI_RANKS.rank holds a real number"},
      {"UPDATE MPI_RANKS SET rank = NULL", "corrupt: MPI_RANKS.rank holds NULL"},
      {"UPDATE MPI_RANKS SET rank = -1", "MPI_RANKS.rank = -1 is out of range (0 to 2147483647)"},
      {"UPDATE MPI_RANKS SET rank = 2147483648",
       "MPI_RANKS.rank = 2147483648 is out of range (0 to 2147483647)"},
      {"UPDATE NVTX_EVENTS SET start = 'abc' WHERE eventType = 59",
       "corrupt: NVTX_EVENTS.start holds text, not an integer"},
      {"UPDATE NVTX_EVENTS SET globalTid = 1.5 WHERE eventType = 59",
       "corrupt: NVTX_EVENTS.globalTid holds a real number, not an integer"},
      {"UPDATE NVTX_EVENTS SET end = 'later' WHERE eventType = 59",
       "corrupt: NVTX_EVENTS.end holds text, not an integer"},
      {"UPDATE NVTX_EVENTS SET domainId = 'nccl' WHERE eventType = 75",
       "corrupt: NVTX_EVENTS.domainId holds text, not an integer"},
      {"UPDATE ThreadNames SET globalTid = 'main'",
       "corrupt: ThreadNames.globalTid holds text, not an integer"},
      {"UPDATE TARGET_INFO_SESSION_START_TIME SET utcEpochNs = 'now'",
       "corrupt: TARGET_INFO_SESSION_START_TIME.utcEpochNs holds text, not an integer"},
      {"UPDATE TARGET_INFO_SESSION_START_TIME SET systemClockNs = -1",
       "TARGET_INFO_SESSION_START_TIME.systemClockNs = -1 is out of range"},
  };
  TempDir dir;
  {
    makeDb(dir / "good.sqlite", fullExport());
    const ImportedFile f = importNsysFile(dir / "good.sqlite");
    ASSERT_EQ(f.ranks.size(), 1u);
    EXPECT_EQ(f.ranks[0].meta.rank, 0);
    EXPECT_EQ(f.ranks[0].memcpys->size(), 1u);
  }
  int n = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.update);
    const auto file = dir / ("case" + std::to_string(n++) + ".sqlite");
    makeDb(file, fullExport() + c.update + ";");
    try {
      importNsysFile(file);
      ADD_FAILURE() << "imported";
    } catch (const TraceError& e) {
      EXPECT_EQ(std::string(e.what()).rfind(file.string() + ": " + c.says, 0), 0u) << e.what();
    }
  }
}

}  // namespace
}  // namespace bubblescope::traces::import
