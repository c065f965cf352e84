// `bubblescope hang` on NCCL-level problems, recorded by the agent from a 4-rank job on the fake
// libnccl.so.2 (no GPU): a collective one rank never enters, and a receive whose count differs
// from its send's. The agent sees the host calls; the report matches them across ranks. With the
// fake libcupti standing in for the GPU: a send and its receive whose kernels never finish.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"

namespace bubblescope::testing {
namespace {

using nlohmann::json;

struct Debugged {
  ProcessResult record, hang;
  json report;
};

// cuda: the ranks make their NCCL kernels through the fake libcupti, which the agent traces.
// `record` finds no CUDA driver on a machine without a GPU and turns CUDA capture off; the job
// turns it back on for its ranks, whose "driver" is the fake.
Debugged recordJob(const TempDir& dir, const std::string& mode, bool cuda = false) {
  const std::string run = (dir / "run").string();
  const std::string cudaOn = cuda ? "BUBBLESCOPE_CUDA=on BUBBLESCOPE_CUDA_NOTE= " : "";
  const std::string job = std::string("for r in 0 1 2 3; do RANK=$r WORLD_SIZE=4 ") + cudaOn +
                          HANG_NCCL_APP + " " + mode +
                          (cuda ? " --cupti " FAKE_CUPTI_LIBRARY : "") + " & done; wait";
  ProcessOptions o;
  o.unsetEnv = {"RANK", "LOCAL_RANK", "WORLD_SIZE", "LD_PRELOAD", "LD_LIBRARY_PATH"};
  if (cuda) o.env = {{"BUBBLESCOPE_CUPTI_PATH", FAKE_CUPTI_LIBRARY}, {"BUBBLESCOPE_CONTROL", "0"}};
  o.timeout = std::chrono::seconds(60);
  Debugged d;
  d.record = runBubblescope({"record", "-o", run, "--", "/bin/sh", "-c", job}, o);
  d.hang = runBubblescope({"hang", run, "--format", "json"});
  d.report = json::parse(d.hang.out, nullptr, false);
  return d;
}

TEST(HangNccl, CollectiveOneRankNeverEntersNamesThatRank) {
  TempDir dir;
  const Debugged d = recordJob(dir, "skip-collective");
  ASSERT_EQ(d.record.exitCode, 0) << d.record.err;
  ASSERT_EQ(d.hang.exitCode, 1) << d.hang.err << d.hang.out;
  const json& rep = d.report;
  ASSERT_EQ(rep["ranks"].size(), 4u) << rep.dump(1);
  EXPECT_EQ(rep["verdict"], "never-arrived") << rep["diagnosis"];
  EXPECT_EQ(rep["culprits"], json::array({3}));
  const std::string diagnosis = rep["diagnosis"];
  EXPECT_EQ(diagnosis.rfind("rank 3 never entered all-reduce #4 of comm 0x", 0), 0u) << diagnosis;
  EXPECT_NE(diagnosis.find("; rank 0, rank 1 and rank 2 wait in it since "), std::string::npos)
      << diagnosis;
  for (int r : {0, 1, 2}) {
    const json& w = rep["ranks"][static_cast<size_t>(r)]["waits"];
    ASSERT_EQ(w.size(), 1u) << r;
    EXPECT_EQ(w[0]["on"], json::array({3}));
    EXPECT_TRUE(w[0]["nccl"].get<bool>());
  }
  EXPECT_TRUE(rep["ranks"][3]["waits"].empty());
}

TEST(HangNccl, P2pCountsThatDifferAreASequenceMismatch) {
  TempDir dir;
  const Debugged d = recordJob(dir, "p2p-count");
  ASSERT_EQ(d.record.exitCode, 0) << d.record.err;
  ASSERT_EQ(d.hang.exitCode, 1) << d.hang.err << d.hang.out;
  EXPECT_EQ(d.report["verdict"], "sequence-mismatch") << d.report["diagnosis"];
  EXPECT_EQ(d.report["culprits"], json::array({0, 1}));
  const std::string diagnosis = d.report["diagnosis"];
  EXPECT_NE(diagnosis.find("rank 0's send #1 to rank 1 on comm 0x"), std::string::npos)
      << diagnosis;
  EXPECT_NE(
      diagnosis.find("carries 100 x float32 (400 B), but rank 1 receives 200 x float32 (800 B)"),
      std::string::npos)
      << diagnosis;
}

TEST(HangNccl, MatchedCallsAreNoHang) {
  TempDir dir;
  const Debugged d = recordJob(dir, "clean");
  ASSERT_EQ(d.record.exitCode, 0) << d.record.err;
  EXPECT_EQ(d.hang.exitCode, 0) << d.hang.out;
  EXPECT_EQ(d.report["verdict"], "clean");
}

TEST(HangNccl, SendAndReceiveWhoseKernelsNeverFinishAreNcclStuck) {
  TempDir dir;
  const Debugged d = recordJob(dir, "stuck-p2p", true);
  ASSERT_EQ(d.hang.exitCode, 1) << d.hang.err << d.hang.out << d.record.err;
  const json& rep = d.report;
  ASSERT_EQ(rep["ranks"].size(), 4u) << rep.dump(1);
  EXPECT_EQ(rep["verdict"], "nccl-stuck") << rep["diagnosis"];
  EXPECT_EQ(rep["culprits"], json::array({0, 1}));
  const std::string diagnosis = rep["diagnosis"];
  EXPECT_EQ(diagnosis.rfind("NCCL stuck: rank 0's ncclSend peer=1 count=100 comm=0x", 0), 0u)
      << diagnosis;
  EXPECT_NE(diagnosis.find("rank 1's ncclRecv peer=0 count=100 comm=0x"), std::string::npos)
      << diagnosis;
  EXPECT_NE(diagnosis.find("never finished"), std::string::npos) << diagnosis;
  for (int r : {0, 1}) {
    const json& w = rep["ranks"][static_cast<size_t>(r)]["waits"];
    ASSERT_EQ(w.size(), 1u) << r << rep.dump(1);
    EXPECT_EQ(w[0]["on"], json::array({1 - r}));
    EXPECT_TRUE(w[0]["kernel_never_finished"].get<bool>());
    EXPECT_TRUE(w[0]["partner_posted"].get<bool>());
    EXPECT_GT(w[0]["kernel_launch_ns"].get<int64_t>(), 0);
  }
  EXPECT_TRUE(rep["ranks"][2]["waits"].empty());
  // The text names the rank, the call, its peer and that its kernel never finished.
  const ProcessResult text = runBubblescope({"hang", (dir / "run").string()});
  EXPECT_NE(text.out.find("ncclRecv peer=0 count=100 comm=0x"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find(": its kernel never finished, stuck on the device since "),
            std::string::npos)
      << text.out;
}

TEST(HangNccl, KernelsThatFinishedBeforeASigkillAreNotStuck) {
  TempDir dir;
  const Debugged d = recordJob(dir, "killed-finished", true);
  ASSERT_EQ(d.hang.exitCode, 1) << d.hang.err << d.hang.out << d.record.err;
  EXPECT_EQ(d.report["verdict"], "stopped") << d.report["diagnosis"];
  for (const json& r : d.report["ranks"]) EXPECT_TRUE(r["waits"].empty()) << r.dump();
}

TEST(HangNccl, CleanRunWithKernelsIsNoHang) {
  TempDir dir;
  const Debugged d = recordJob(dir, "clean", true);
  ASSERT_EQ(d.record.exitCode, 0) << d.record.err;
  EXPECT_EQ(d.hang.exitCode, 0) << d.hang.out;
  EXPECT_EQ(d.report["verdict"], "clean");
}

}  // namespace
}  // namespace bubblescope::testing
