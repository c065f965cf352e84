// NCCL capture end to end: nccl_test_app, linked against a fake libnccl.so.2 (fake_nccl.cpp),
// run under `bubblescope record`. Both routes: the agent's interposed NCCL API (the program's
// calls) and NCCL's own NVTX ranges with their payloads (calls that bypass the hooks, as with
// NCCL linked in statically). The real functions must run and their results reach the program.
#include <dlfcn.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "agent/nccl/comm_hash.h"
#include "tests/agent/agent_test_support.h"
#include "tests/support/temp_dir.h"
#include "traces/sqlite/trace_reader.h"

namespace bubblescope::testing {
namespace {

namespace fs = std::filesystem;

constexpr const char* kNcclApp = NCCL_TEST_APP;

// Without LD_LIBRARY_PATH, which would take precedence over the program's RUNPATH, a real NCCL
// on the machine cannot stand in for the fake one.
ProcessOptions ncclEnv(std::map<std::string, std::string> env = {}) {
  ProcessOptions o = cleanEnv(std::move(env));
  o.unsetEnv.push_back("LD_LIBRARY_PATH");
  o.timeout = std::chrono::seconds(60);
  return o;
}

ProcessResult recordNccl(const fs::path& dir, const std::string& mode,
                         const std::vector<std::string>& recordOptions = {},
                         std::map<std::string, std::string> env = {}) {
  std::vector<std::string> args = {"record", "-o", dir.string()};
  args.insert(args.end(), recordOptions.begin(), recordOptions.end());
  args.insert(args.end(), {"--", kNcclApp, mode});
  return runBubblescope(args, ncclEnv(std::move(env)));
}

fs::path onlyTrace(const fs::path& dir) {
  const auto files = traceFiles(dir);
  EXPECT_EQ(files.size(), 1u);
  return files.empty() ? fs::path() : files[0];
}

// What the fake library gives as the unique id (fake_nccl.cpp, ncclGetUniqueId).
uint64_t hashOfFakeUniqueId() {
  char id[128];
  for (size_t i = 0; i < sizeof id; ++i) id[i] = static_cast<char>(i * 7 + 3);
  return agent::commHashOfUniqueId(id, sizeof id);
}

std::string signedText(uint64_t v) {
  return std::to_string(static_cast<int64_t>(v));
}

// The fake's own communicator hashes, as the program printed them.
std::pair<uint64_t, uint64_t> fakeHashes(const std::string& out) {
  const size_t at = out.find("fake_hash ");
  std::istringstream in(out.substr(at == std::string::npos ? out.size() : at + 10));
  uint64_t a = 0, b = 0;
  in >> a >> b;
  return {a, b};
}

// One nccl_calls row of the expected sequence: op, peer, count, dtype, bytes, comm, rank, size,
// stream, group depth, seq.
using Row = std::vector<std::string>;
const char* kColumns =
    "SELECT op, peer, count, dtype, bytes, comm, comm_rank, comm_size, stream, group_depth, seq, "
    "source, id FROM nccl_calls ORDER BY start, id";

// The program's line of results, identical with and without the agent.
const char* kResults = "results 0 0 0 0 0 0 0 0 0 0 0 4 5 0 0 0 0\nreduced 1.5\ncalls 17\n";

TEST(AgentNccl, HookedCallsLandWithTheirFieldsAndTheRealLibraryAnswers) {
  TempDir tmp;
  const auto plain = runProcess({kNcclApp, "calls"}, ncclEnv());
  ASSERT_EQ(plain.exitCode, 0) << plain.err;
  ASSERT_EQ(plain.out.rfind(kResults, 0), 0u) << plain.out;

  const auto r = recordNccl(tmp / "run", "calls");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out, plain.out);  // every call reached the library and its result came back
  const fs::path file = onlyTrace(tmp / "run");

  const std::string comm = signedText(hashOfFakeUniqueId());
  const std::string half = signedText(agent::commHashOfSplit(hashOfFakeUniqueId(), 1, 1));
  const std::string s = std::to_string(0x5000);
  // op: 1 Send, 2 Recv, 3 AllReduce, 4 AllGather, 5 ReduceScatter, 6 Broadcast, 7 Reduce,
  // 9 GroupStart, 10 GroupEnd, 11 CommInitRank, 12 CommSplit, 13 CommDestroy.
  // dtype: ncclInt8 0, Uint32 3, Int64 4, Float16 6, Float32 7, Float64 8, Bfloat16 9.
  const std::vector<Row> expected = {
      {"11", "-1", "0", "0", "0", comm, "1", "4", "0", "0", "0"},
      {"9", "-1", "0", "0", "0", "0", "-1", "-1", "0", "1", "0"},
      {"1", "2", "100", "7", "400", comm, "1", "4", s, "1", "1"},
      {"2", "0", "50", "4", "400", comm, "1", "4", s, "1", "1"},
      {"10", "-1", "2", "0", "0", "0", "-1", "-1", "0", "1", "0"},
      {"3", "-1", "256", "7", "1024", comm, "1", "4", s, "0", "1"},
      {"4", "-1", "64", "9", "128", comm, "1", "4", s, "0", "2"},
      {"5", "-1", "32", "8", "256", comm, "1", "4", s, "0", "3"},
      {"6", "3", "16", "0", "16", comm, "1", "4", s, "0", "4"},
      {"7", "0", "8", "3", "32", comm, "1", "4", s, "0", "5"},
      {"1", "9", "1", "7", "4", comm, "1", "4", s, "0", "2"},
      {"10", "-1", "0", "0", "0", "0", "-1", "-1", "0", "0", "0"},
      {"12", "-1", "0", "0", "0", half, "1", "2", "0", "0", "0"},
      {"3", "-1", "4", "6", "8", half, "1", "2", s, "0", "1"},
      {"13", "-1", "0", "0", "0", half, "1", "2", "0", "0", "0"},
      {"13", "-1", "0", "0", "0", comm, "1", "4", "0", "0", "0"},
  };
  const auto rows = sqlRows(file, kColumns);
  ASSERT_EQ(rows.size(), expected.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row fields(rows[i].begin(), rows[i].begin() + 11);
    EXPECT_EQ(fields, expected[i]) << "row " << i;
    EXPECT_EQ(rows[i][11], "0") << "row " << i << ": source is the hook";
  }
  // The group's calls share the id block of the ncclGroupEnd that launched them (their kernels
  // carry that id through CUPTI's external correlation).
  const auto id = [&](size_t i) { return static_cast<uint64_t>(std::stoll(rows[i][12])); };
  EXPECT_EQ(id(2) >> 16, id(4) >> 16);
  EXPECT_EQ(id(3) >> 16, id(4) >> 16);
  EXPECT_EQ(id(1), id(4) | 0xFFFF);
  EXPECT_NE(id(5) >> 16, id(4) >> 16);
  EXPECT_EQ(sqlInt(file, "SELECT count(*) FROM nccl_calls WHERE end < start"), 0);
  EXPECT_EQ(sqlInt(file, "SELECT count(DISTINCT id) FROM nccl_calls"), 16);
  EXPECT_EQ(traces::readRankMeta(file).droppedTotal(), 0u);
}

TEST(AgentNccl, NcclsOwnNvtxRangesInsideAHookedCallAreNotCountedTwice) {
  TempDir tmp;
  const auto r = recordNccl(tmp / "run", "calls", {}, {{"FAKE_NCCL_NVTX", "1"}});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out.rfind(kResults, 0), 0u) << r.out;
  const fs::path file = onlyTrace(tmp / "run");
  EXPECT_EQ(sqlInt(file, "SELECT count(*) FROM nccl_calls"), 16);
  EXPECT_EQ(sqlInt(file, "SELECT count(*) FROM nccl_calls WHERE source != 0"), 0);
  // NCCL's ranges stay NVTX ranges of domain "NCCL" as well.
  EXPECT_EQ(sqlInt(file,
                   "SELECT count(*) FROM nvtx_ranges r JOIN strings d ON d.id = r.domain_id "
                   "JOIN strings n ON n.id = r.name_id WHERE d.value = 'NCCL' AND "
                   "n.value = 'ncclSend'"),
            2);
}

TEST(AgentNccl, CallsPastTheHooksAreDecodedFromNcclsNvtxPayloads) {
  TempDir tmp;
  const auto r = recordNccl(tmp / "run", "direct", {}, {{"FAKE_NCCL_NVTX", "1"}});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out.rfind(kResults, 0), 0u) << r.out;
  const fs::path file = onlyTrace(tmp / "run");
  const auto [commHash, halfHash] = fakeHashes(r.out);
  ASSERT_NE(commHash, 0u) << r.out;
  const std::string comm = signedText(commHash), half = signedText(halfHash);
  // From the payloads: communicator hash, bytes, peer or root; rank and size from the
  // communicator's init (or split) payload. No count or type: NCCL's payloads carry bytes.
  const std::vector<Row> expected = {
      {"11", "-1", "0", "255", "0", comm, "1", "4", "0", "0", "0"},
      {"9", "-1", "0", "255", "0", "0", "-1", "-1", "0", "1", "0"},
      {"1", "2", "0", "255", "400", comm, "1", "4", "0", "1", "1"},
      {"2", "0", "0", "255", "400", comm, "1", "4", "0", "1", "1"},
      {"10", "-1", "2", "255", "0", "0", "-1", "-1", "0", "1", "0"},
      {"3", "-1", "0", "255", "1024", comm, "1", "4", "0", "0", "1"},
      {"4", "-1", "0", "255", "128", comm, "1", "4", "0", "0", "2"},
      {"5", "-1", "0", "255", "256", comm, "1", "4", "0", "0", "3"},
      {"6", "3", "0", "255", "16", comm, "1", "4", "0", "0", "4"},
      {"7", "0", "0", "255", "32", comm, "1", "4", "0", "0", "5"},
      {"1", "9", "0", "255", "4", comm, "1", "4", "0", "0", "2"},
      {"10", "-1", "0", "255", "0", "0", "-1", "-1", "0", "0", "0"},
      {"12", "-1", "0", "255", "0", half, "1", "2", "0", "0", "0"},
      {"3", "-1", "0", "255", "8", half, "1", "2", "0", "0", "1"},
      {"13", "-1", "0", "255", "0", half, "1", "2", "0", "0", "0"},
      {"13", "-1", "0", "255", "0", comm, "1", "4", "0", "0", "0"},
  };
  const auto rows = sqlRows(file, kColumns);
  ASSERT_EQ(rows.size(), expected.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row fields(rows[i].begin(), rows[i].begin() + 11);
    EXPECT_EQ(fields, expected[i]) << "row " << i;
    EXPECT_EQ(rows[i][11], "1") << "row " << i << ": source is NCCL's NVTX";
  }
}

TEST(AgentNccl, WithoutNvtxOrHooksCallsPastTheHooksLeaveNoRows) {
  TempDir tmp;
  const auto r = recordNccl(tmp / "run", "direct");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out.rfind(kResults, 0), 0u) << r.out;
  EXPECT_TRUE(traceFiles(tmp / "run").empty());  // nothing recorded, so no file
}

TEST(AgentNccl, ProgramWithoutNcclIsUnaffected) {
  TempDir tmp;
  const auto plain = runProcess({kTestApp, "ranges", "5", "7"}, ncclEnv());
  const auto r = runBubblescope(
      {"record", "-o", (tmp / "run").string(), "--", kTestApp, "ranges", "5", "7"}, ncclEnv());
  EXPECT_EQ(r.exitCode, 7);
  EXPECT_EQ(r.out, plain.out);
  const fs::path file = onlyTrace(tmp / "run");
  EXPECT_EQ(sqlInt(file, "SELECT count(*) FROM nccl_calls"), 0);
  EXPECT_EQ(sqlInt(file, "SELECT count(*) FROM nvtx_ranges"), 5);
  // No line about NCCL: it was never called (the no-driver line only says NCCL capture goes on).
  for (const auto& line : agentLines(r.err)) {
    if (line.find("CUDA capture is off") != std::string::npos) continue;
    EXPECT_EQ(line.find("NCCL"), std::string::npos) << line;
  }
}

TEST(AgentNccl, NoGpuDriverTurnsCudaCaptureOffInOneLineAndNcclAndNvtxGoOn) {
  if (void* driver = dlopen("libcuda.so.1", RTLD_LAZY)) {
    dlclose(driver);
    GTEST_SKIP() << "a CUDA driver is installed here";
  }
  // The agent preloaded by hand, and the program doing what the driver does at cuInit: the
  // agent starts CUPTI, which finds no driver.
  TempDir tmp;
  const auto r =
      runProcess({kNcclApp, "inject"}, ncclEnv({{"LD_PRELOAD", kAgentLibrary},
                                                {"BUBBLESCOPE_OUTPUT_DIR", (tmp / "run").string()},
                                                {"FAKE_NCCL_NVTX", "1"}}));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out.rfind("injection 1\n" + std::string(kResults), 0), 0u) << r.out;
  const auto lines = agentLines(r.err);
  ASSERT_EQ(lines.size(), 1u) << r.err;
  EXPECT_NE(lines[0].find("CUDA capture is off"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("NVTX and NCCL capture go on"), std::string::npos) << lines[0];
  const fs::path file = onlyTrace(tmp / "run");
  EXPECT_EQ(sqlInt(file, "SELECT count(*) FROM nccl_calls"), 16);
  EXPECT_GT(sqlInt(file, "SELECT count(*) FROM nvtx_ranges"), 0);
  EXPECT_EQ(sqlInt(file, "SELECT count(*) FROM kernels"), 0);
  const traces::RankMeta m = traces::readRankMeta(file);
  EXPECT_FALSE(m.cudaCapture);
  EXPECT_NE(m.cudaNote.find("CUPTI"), std::string::npos) << m.cudaNote;
}

TEST(AgentNccl, CudaOnOrOffDecidesWhetherTheAgentBecomesTheCudaInjection) {
  TempDir tmp;
  const std::map<std::string, std::string> preload = {
      {"LD_PRELOAD", kAgentLibrary}, {"BUBBLESCOPE_OUTPUT_DIR", (tmp / "x").string()}};
  auto env = preload;
  env["BUBBLESCOPE_CUDA"] = "on";
  const auto on = runProcess({kNcclApp, "env"}, ncclEnv(env));
  EXPECT_EQ(on.out, "CUDA_INJECTION64_PATH=" + std::string(kAgentLibrary) + "\n") << on.err;
  env["BUBBLESCOPE_CUDA"] = "off";
  const auto off = runProcess({kNcclApp, "env"}, ncclEnv(env));
  EXPECT_EQ(off.out, "CUDA_INJECTION64_PATH=\n") << off.err;
  // Another tool's injection is left alone.
  env["BUBBLESCOPE_CUDA"] = "on";
  env["CUDA_INJECTION64_PATH"] = "/opt/other/libtool.so";
  const auto other = runProcess({kNcclApp, "env"}, ncclEnv(env));
  EXPECT_EQ(other.out, "CUDA_INJECTION64_PATH=/opt/other/libtool.so\n") << other.err;

  // `record --cuda off`: the trace says why, and NCCL capture goes on.
  const auto r = recordNccl(tmp / "run", "calls", {"--cuda", "off"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const fs::path file = onlyTrace(tmp / "run");
  const traces::RankMeta m = traces::readRankMeta(file);
  EXPECT_FALSE(m.cudaCapture);
  EXPECT_EQ(m.cudaNote, "CUDA capture turned off (--cuda off)");
  EXPECT_EQ(sqlInt(file, "SELECT count(*) FROM nccl_calls"), 16);
}

}  // namespace
}  // namespace bubblescope::testing
