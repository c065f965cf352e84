// The job's grid: which rank is which stage of which pipeline, from the traces' metadata, else
// the stage ids in the labels, else who sends activations to whom, else rank order; ranks of one
// TP group share a stage and the busiest represents it. Inputs that cannot form a pipeline are
// refused with one sentence naming the file.
#include "analyzer/pipeline/topology.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <string>

#include "analyzer/result/errors.h"

namespace bubblescope::analysis {
namespace {

using ::testing::HasSubstr;
using Ranks = std::vector<std::vector<std::vector<size_t>>>;

// `n` ranks of one run, each with one 1 ms op unless `busy` says otherwise (0: no ops at all).
struct Job {
  traces::Run run;
  std::vector<RankOps> ops;

  explicit Job(int n, std::vector<TimeNs> busy = {}) {
    run.dir = "run";
    run.ranks.resize(n);
    ops.resize(n);
    for (int r = 0; r < n; ++r) {
      run.ranks[r].file = "run/rank-" + std::to_string(r) + ".sqlite";
      run.ranks[r].meta.rank = r;
      run.ranks[r].meta.worldSize = n;
      run.ranks[r].meta.runId = "job-1";
      const TimeNs d = r < static_cast<int>(busy.size()) ? busy[r] : 1'000'000;
      if (d > 0) ops[r].ops.push_back({.op = {}, .start = 0, .end = d});
    }
  }
  Job& meta(int rank, const std::map<std::string, std::string>& extra) {
    for (const auto& [k, v] : extra) run.ranks[rank].meta.extra[k] = v;
    return *this;
  }
  Job& grid(int rank, int pp, int dp, int ppSize) {
    return meta(rank, {{"BUBBLESCOPE_PP_RANK", std::to_string(pp)},
                       {"BUBBLESCOPE_DP_RANK", std::to_string(dp)},
                       {"BUBBLESCOPE_PP_SIZE", std::to_string(ppSize)}});
  }
  Topology build() const { return buildTopology(run, ops); }
};

TEST(BuildTopology, MetadataPlacesEachRankInItsStageAndReplica) {
  Job job(4);
  job.grid(0, 0, 0, 2).grid(1, 1, 0, 2).grid(2, 0, 1, 2).grid(3, 1, 1, 2);
  const Topology t = job.build();
  EXPECT_EQ(t.source, "metadata");
  EXPECT_EQ(t.pp, 2);
  EXPECT_EQ(t.dp, 2);
  EXPECT_EQ(t.tp, 1);
  EXPECT_EQ(t.ranksOf, (Ranks{{{0}, {1}}, {{2}, {3}}}));
  EXPECT_EQ(t.dpRanks, (std::vector<int>{0, 1}));
  EXPECT_TRUE(t.outside.empty());
  EXPECT_TRUE(t.warnings.empty());
}

TEST(BuildTopology, MetadataOrderNotRankOrderDecidesTheStage) {
  Job job(3);
  job.meta(0, {{"BUBBLESCOPE_PP_RANK", "2"}});
  job.meta(1, {{"BUBBLESCOPE_PP_RANK", "0"}});
  job.meta(2, {{"BUBBLESCOPE_PP_RANK", "1"}});
  const Topology t = job.build();
  EXPECT_EQ(t.pp, 3);  // no PP_SIZE: the highest stage + 1
  EXPECT_EQ(t.ranksOf, (Ranks{{{1}, {2}, {0}}}));
}

TEST(BuildTopology, TensorParallelRanksShareAStageAndTheBusiestRepresentsIt) {
  Job job(4, {1'000'000, 3'000'000, 2'000'000, 2'000'000});
  for (int r = 0; r < 4; ++r) job.meta(r, {{"BUBBLESCOPE_PP_RANK", std::to_string(r / 2)}});
  const Topology t = job.build();
  EXPECT_EQ(t.pp, 2);
  EXPECT_EQ(t.tp, 2);
  EXPECT_EQ(t.ranksOf, (Ranks{{{1, 0}, {2, 3}}}));  // equal busy time: rank order kept
}

TEST(BuildTopology, RanksWithoutPipelineOpsStayOutside) {
  Job job(3, {1'000'000, 0, 1'000'000});
  job.meta(0, {{"BUBBLESCOPE_PP_RANK", "0"}}).meta(2, {{"BUBBLESCOPE_PP_RANK", "1"}});
  const Topology t = job.build();
  EXPECT_EQ(t.outside, (std::vector<size_t>{1}));
  EXPECT_EQ(t.ranksOf, (Ranks{{{0}, {2}}}));
}

TEST(BuildTopology, LabelsGiveStagesWithoutMetadataAndRepeatsAreFurtherReplicas) {
  Job job(4);
  for (int r = 0; r < 4; ++r) job.ops[r].stageFromLabels = r % 2;
  job.meta(0, {{"BUBBLESCOPE_PP_RANK", "0"}});  // one rank's metadata is not enough
  const Topology t = job.build();
  EXPECT_EQ(t.source, "labels");
  EXPECT_EQ(t.pp, 2);
  EXPECT_EQ(t.dp, 2);
  EXPECT_EQ(t.ranksOf, (Ranks{{{0}, {1}}, {{2}, {3}}}));
}

TEST(BuildTopology, ActivationTrafficGivesStagesWhenNothingElseDoes) {
  // Rank 0 receives from stage 1 (so is stage 2), rank 1 sends to stage 1 (stage 0), rank 2
  // receives from stage 0 (stage 1).
  Job job(3);
  job.ops[0].comms.push_back(analysis::RecognizedComm{
      .send = false, .pass = OpKind::F, .peer = 1, .step = 0, .start = 0, .end = 1});
  job.ops[1].comms.push_back(analysis::RecognizedComm{
      .send = true, .pass = OpKind::F, .peer = 1, .step = 0, .start = 0, .end = 1});
  job.ops[2].comms.push_back(analysis::RecognizedComm{
      .send = false, .pass = OpKind::F, .peer = 0, .step = 0, .start = 0, .end = 1});
  job.ops[2].comms.push_back(analysis::RecognizedComm{.send = true,
                                                      .pass = OpKind::B,
                                                      .peer = 0,
                                                      .step = 0,
                                                      .start = 2,
                                                      .end = 3});  // gradients don't vote
  const Topology t = job.build();
  EXPECT_EQ(t.source, "p2p");
  EXPECT_EQ(t.ranksOf, (Ranks{{{1}, {2}, {0}}}));

  // What one process holds of ranks recognised elsewhere (`analyze` under MPI): their places
  // alone, the ops gone, place them the same.
  std::vector<RankPlace> places;
  for (const RankOps& o : job.ops) places.push_back(placeOf(o));
  EXPECT_EQ(places[0].stageFromPeers, 2);
  EXPECT_EQ(places[2].stageFromPeers, 1);
  EXPECT_EQ(places[1].busyTime, 1'000'000);
  job.ops.clear();
  const Topology placed = buildTopology(job.run, places);
  EXPECT_EQ(placed.source, "p2p");
  EXPECT_EQ(placed.ranksOf, t.ranksOf);
}

TEST(BuildTopology, FilesOfOneNameAreToldApartByTheirDirectories) {
  Job job(2);
  job.run.ranks[0].file = "node-a/rank-0.sqlite";
  job.run.ranks[1].file = "node-b/rank-0.sqlite";
  job.run.ranks[1].meta.runId = "job-2";
  try {
    job.build();
    FAIL() << "accepted";
  } catch (const AnalysisInputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("(node-a/rank-0.sqlite and node-b/rank-0.sqlite differ"));
  }
}

TEST(BuildTopology, RankOrderIsTheLastResortAndSaysSo) {
  Job job(2);
  const Topology t = job.build();
  EXPECT_EQ(t.source, "rank order");
  EXPECT_EQ(t.ranksOf, (Ranks{{{0}, {1}}}));
  ASSERT_EQ(t.warnings.size(), 1u);
  EXPECT_THAT(t.warnings[0], HasSubstr("stages taken in rank order"));
}

struct RefusalCase {
  const char* what;
  std::function<void(Job&)> setUp;
  const char* message;
};

TEST(BuildTopology, RefusesInputThatCannotFormAPipeline) {
  const RefusalCase cases[] = {
      {"no ops anywhere",
       [](Job& j) {
         for (auto& o : j.ops) o.ops.clear();
       },
       "run: no pipeline ops in any of the 2 traces"},
      {"two runs", [](Job& j) { j.run.ranks[1].meta.runId = "job-2"; },
       "run: traces of two runs are mixed here (rank-0.sqlite and rank-1.sqlite differ in run id "
       "or world size); give each run its own directory"},
      {"two world sizes", [](Job& j) { j.run.ranks[1].meta.worldSize = 8; },
       "traces of two runs are mixed here"},
      {"a stage without a trace", [](Job& j) { j.grid(0, 0, 0, 3).grid(1, 1, 0, 3); },
       "run: missing ranks: pipeline 0 has no trace for stage 2 of 3"},
      {"a stage beyond the pipeline", [](Job& j) { j.grid(0, 0, 0, 2).grid(1, 3, 0, 2); },
       "run: rank-1.sqlite says stage 3 of a 2-stage pipeline"},
      // Sizes from a trace size nothing before they are checked (issue 28: 2e8 took 13.6 s and
      // 4.7 GB before "missing ranks", 2e9 was std::bad_alloc).
      {"a pipeline size no run could hold",
       [](Job& j) { j.grid(0, 0, 0, 2'000'000'000).grid(1, 1, 0, 2'000'000'000); },
       "run: missing ranks: pipeline 0 has no trace for stage 2 of 2000000000"},
      {"a stage id no run could hold",
       [](Job& j) { j.grid(0, 0, 0, 2'000'000'000).grid(1, 2'000'000'000 - 1, 0, 2'000'000'000); },
       "run: missing ranks: pipeline 0 has no trace for stage 1 of 2000000000"},
      // Metadata numbers that do not fit were cast (2^32 + 1 read as 1) or overflowed a size.
      {"a PP rank beyond int",
       [](Job& j) {
         j.grid(0, 0, 0, 2).meta(1, {{"BUBBLESCOPE_PP_RANK", "4294967297"}});
       },
       "run/rank-1.sqlite: meta BUBBLESCOPE_PP_RANK = '4294967297' is not a whole number from 0 "
       "to 2147483646"},
      {"a PP rank whose size overflows",
       [](Job& j) {
         j.meta(0, {{"BUBBLESCOPE_PP_RANK", "2147483647"}});
       },
       "meta BUBBLESCOPE_PP_RANK = '2147483647' is not a whole number from 0 to 2147483646"},
      {"a negative DP rank", [](Job& j) { j.grid(0, 0, -1, 2); },
       "run/rank-0.sqlite: meta BUBBLESCOPE_DP_RANK = '-1' is not a whole number"},
      {"a DP rank that is text",
       [](Job& j) {
         j.grid(0, 0, 0, 2).meta(0, {{"BUBBLESCOPE_DP_RANK", "zero"}});
       },
       "meta BUBBLESCOPE_DP_RANK = 'zero' is not a whole number"},
      {"a PP size of 0", [](Job& j) { j.grid(0, 0, 0, 0); },
       "meta BUBBLESCOPE_PP_SIZE = '0' is not a whole number from 1 to 2147483647"},
      // A row of 2^31 - 1 empty stages would be 48 GB: the missing stage is named first.
      {"a PP size of 2^31 - 1",
       [](Job& j) { j.grid(0, 0, 0, 2147483647).grid(1, 1, 0, 2147483647); },
       "run: missing ranks: pipeline 0 has no trace for stage 2 of 2147483647"},
      {"a stage id of INT32_MAX in the labels",
       [](Job& j) {
         j.ops[0].stageFromLabels = 0;
         j.ops[1].stageFromLabels = INT32_MAX;
       },
       "run: rank-1.sqlite says stage 2147483647 of a 2147483647-stage pipeline"},
      // Two ranks in one place were folded into one TP group of two.
      {"two ranks in one place",
       [](Job& j) {
         j.grid(0, 0, 0, 1).grid(1, 0, 0, 1);
         j.meta(0, {{"BUBBLESCOPE_TP_RANK", "0"}}).meta(1, {{"BUBBLESCOPE_TP_RANK", "0"}});
       },
       "run: rank-0.sqlite and rank-1.sqlite both say DP rank 0, PP rank 0, TP rank 0"},
  };
  for (const auto& c : cases) {
    Job job(2);
    c.setUp(job);
    try {
      job.build();
      ADD_FAILURE() << c.what << ": accepted";
    } catch (const AnalysisInputError& e) {
      EXPECT_THAT(e.what(), HasSubstr(c.message)) << c.what;
    }
  }
}

}  // namespace
}  // namespace bubblescope::analysis
