// `bubblescope hang` on NCCL-level problems, recorded by the agent from a 4-rank job on the fake
// libnccl.so.2 (no GPU): a collective one rank never enters, and a receive whose count differs
// from its send's. The agent sees the host calls; the report matches them across ranks.
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

Debugged recordJob(const TempDir& dir, const std::string& mode) {
  const std::string run = (dir / "run").string();
  const std::string job = std::string("for r in 0 1 2 3; do RANK=$r WORLD_SIZE=4 ") +
                          HANG_NCCL_APP + " " + mode + " & done; wait";
  ProcessOptions o;
  o.unsetEnv = {"RANK", "LOCAL_RANK", "WORLD_SIZE", "LD_PRELOAD", "LD_LIBRARY_PATH"};
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

}  // namespace
}  // namespace bubblescope::testing
