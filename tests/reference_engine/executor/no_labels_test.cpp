// `engine run --no-labels` recorded by the capture agent: none of the engine's own ranges reach
// the profiler, and every transfer, all-reduce and the rendezvous reach it as NCCL's own ranges
// would (domain NCCL, decoded by the agent into NCCL calls), each covering the real call.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "tests/support/engine_recording.h"
#include "tests/support/temp_dir.h"
#include "traces/sqlite/run_reader.h"

namespace bubblescope::engine {
namespace {

using nlohmann::json;
using traces::NcclOp;
namespace fs = std::filesystem;

constexpr int kP = 4, kM = 4, kSteps = 4;  // steps: recordEngineRun's
constexpr uint64_t kPayloadBytes = 65536;  // the engine's default activation size

struct Recorded {
  traces::Run run;
  json truth;
};

const Recorded& recorded() {
  static testing::TempDir dir("bubblescope-no-labels");
  static const Recorded r = [] {
    const auto p =
        testing::recordEngineRun((dir / "run").string(), (dir / "truth.json").string(),
                                 {"--schedule", "1f1b", "-p", std::to_string(kP), "-m",
                                  std::to_string(kM), "--host-stall", "1:2:3", "--no-labels"});
    EXPECT_EQ(p.exitCode, 0) << p.err;
    std::ifstream in(dir / "truth.json");
    return Recorded{traces::readRun(dir / "run"), json::parse(in)};
  }();
  return r;
}

TEST(NoLabels, OnlyNcclsRangesAndTheWorkloadsDataLoaderReachTheProfiler) {
  const Recorded& r = recorded();
  ASSERT_EQ(r.run.ranks.size(), static_cast<size_t>(kP));
  EXPECT_FALSE(r.truth.at("labels").get<bool>());
  for (const traces::RankTrace& t : r.run.ranks) {
    std::set<std::string> names;
    for (size_t i = 0; i < t.ranges->size(); ++i) {
      if (t.strings.at(t.ranges->domain[i]) != "NCCL")
        names.emplace(t.strings.at(t.ranges->name[i]));
    }
    // Stage 1's host stall is its data loader's work: a range of the workload, not a label.
    EXPECT_EQ(names,
              t.meta.rank == 1 ? std::set<std::string>{"dataloader"} : std::set<std::string>{})
        << "rank " << t.meta.rank;
    // Nor do the stages say where they sit in the pipeline: that is to be read off the traffic.
    EXPECT_EQ(t.meta.extra.count("BUBBLESCOPE_PP_SIZE"), 0u) << "rank " << t.meta.rank;
  }
}

TEST(NoLabels, EveryTransferIsAnNcclCallOfOnePipelineCommunicator) {
  const Recorded& r = recorded();
  std::set<uint64_t> comms;
  for (const traces::RankTrace& t : r.run.ranks) {
    const int stage = t.meta.rank;
    const json& truth = r.truth.at("stages").at(static_cast<size_t>(stage));
    const auto& c = *t.ncclCalls;
    std::vector<int> sendPeers, recvPeers;
    int inits = 0, allReduces = 0;
    for (size_t i = 0; i < c.size(); ++i) {
      EXPECT_EQ(c.source[i], traces::NcclSource::Nvtx);
      comms.insert(c.comm[i]);
      EXPECT_EQ(c.commRank[i], stage);
      EXPECT_EQ(c.commSize[i], kP);
      switch (c.op[i]) {
        case NcclOp::CommInitRank:
          ++inits;
          break;
        case NcclOp::AllReduce:
          ++allReduces;
          break;
        case NcclOp::Send:
          sendPeers.push_back(c.peer[i]);
          EXPECT_EQ(c.bytes[i], kPayloadBytes);
          break;
        case NcclOp::Recv:
          recvPeers.push_back(c.peer[i]);
          // The size a receive learns when its message is there, given at the range's pop.
          EXPECT_EQ(c.bytes[i], kPayloadBytes);
          break;
        default:
          ADD_FAILURE() << "unexpected NCCL op " << static_cast<int>(c.op[i]);
      }
    }
    EXPECT_EQ(inits, 1) << "stage " << stage;
    EXPECT_EQ(allReduces, kSteps) << "stage " << stage;
    // The sends and receives the engine made, in its order, to and from the peers it names.
    std::vector<int> truthSends, truthRecvs;
    for (const json& s : truth.at("sends")) truthSends.push_back(s.at("peer"));
    for (const json& s : truth.at("recvs")) truthRecvs.push_back(s.at("peer"));
    EXPECT_EQ(sendPeers.size(), truthSends.size()) << "stage " << stage;
    EXPECT_EQ(recvPeers, truthRecvs) << "stage " << stage;
    std::multiset<int> a(sendPeers.begin(), sendPeers.end()),
        b(truthSends.begin(), truthSends.end());
    EXPECT_EQ(a, b) << "stage " << stage;
  }
  // One communicator, the same hash in every member.
  EXPECT_EQ(comms.size(), 1u);
}

TEST(NoLabels, AReceivesRangeCoversItsRealWait) {
  const Recorded& r = recorded();
  for (const traces::RankTrace& t : r.run.ranks) {
    const json& truth = r.truth.at("stages").at(static_cast<size_t>(t.meta.rank));
    std::vector<std::pair<TimeNs, TimeNs>> calls;
    for (size_t i = 0; i < t.ncclCalls->size(); ++i) {
      if (t.ncclCalls->op[i] == NcclOp::Recv)
        calls.emplace_back(t.ncclCalls->start[i], t.ncclCalls->end[i]);
    }
    const json& recvs = truth.at("recvs");
    ASSERT_EQ(calls.size(), recvs.size());
    for (size_t k = 0; k < calls.size(); ++k) {
      // The engine's own record of the wait (the range it would have labelled RECV) holds the
      // NCCL range, short of it by no more than it takes to open and close one (µs; a loaded
      // machine may preempt the stage in between). The clocks may differ by a few µs.
      const TimeNs start = recvs[k].at("start_ns"), end = recvs[k].at("end_ns");
      constexpr TimeNs kClocks = 20'000, kPreempted = 2'000'000;
      EXPECT_GE(calls[k].first, start - kClocks) << "rank " << t.meta.rank << " recv " << k;
      EXPECT_LE(calls[k].second, end + kClocks) << "rank " << t.meta.rank << " recv " << k;
      EXPECT_LE(calls[k].first - start + (end - calls[k].second), kPreempted)
          << "rank " << t.meta.rank << " recv " << k;
    }
  }
}

}  // namespace
}  // namespace bubblescope::engine
