// A job analysed with each replica where its ranks are (owned_analysis.h) gives the report one
// process gives of the whole run: its ranks dealt at random to 2-3 processes (each rank's holder
// drawn and printed), the coordinator fed only the light parts, every message between processes
// made into bytes and back; on the jobs of replica_jobs.h (Kineto and nsys; 1F1B, interleaved,
// ZB-V; fault-free, slow link, slow replica; skewed clocks, fused and unfused posts, both rank
// orders), every gap kept and a summary that lists one replica whole; the summary again with the
// calls rewritten so that each way of dividing the matching is taken (rewriteComms).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "analyzer/analyze.h"
#include "analyzer/owned_analysis.h"
#include "analyzer/owned_rounds_codec.h"
#include "analyzer/pipeline/pipeline_trace.h"
#include "analyzer/pipeline/topology.h"
#include "analyzer/recognize/rank_ops_codec.h"
#include "analyzer/replicas/split_matching.h"
#include "analyzer/report/json_report.h"
#include "analyzer/result/errors.h"
#include "tests/support/temp_dir.h"
#include "tests/tracegen/replica_jobs.h"
#include "traces/import/run_import.h"
#include "traces/model/trace_codec.h"

namespace bubblescope::tracegen {
namespace {

using analysis::RankOps;
using replica_jobs::Case;

// `value` made into bytes by `encode` and read back by `decode`, as a process hands it on.
template <typename T, typename Encode, typename Decode>
T sent(const T& value, Encode encode, Decode decode) {
  std::string bytes;
  traces::ByteWriter w(bytes);
  encode(value, w);
  traces::ByteReader r(bytes);
  T out = decode(r);
  EXPECT_TRUE(r.done());
  return out;
}

traces::Run imported(const std::filesystem::path& dir) {
  return traces::import::importRun(traces::import::resolveInputs({dir})).run;
}

// The analysis made by `processes` processes, each rank held by `holder[rank]`.
// `p2pAway`: how many sends and receives the owners left to the coordinator; `owned`: each
// replica's owner.
analysis::AnalysisResult analysedWhereHeld(traces::Run&& run, const std::vector<int>& holder,
                                           int processes, const analysis::AnalyzeOptions& options,
                                           size_t* p2pAway = nullptr,
                                           std::vector<int>* owned = nullptr) {
  const analysis::RuleSets rules({});
  // Each holder: its ranks recognised and kept whole; the coordinator: what it plans by.
  std::vector<std::pair<traces::RankTrace, RankOps>> held(run.ranks.size());
  traces::Run planRun;
  std::vector<RankOps> planning;
  std::vector<analysis::RankPlace> places;
  std::vector<std::vector<int64_t>> steps;
  std::vector<analysis::CommRoster> rosters;
  std::vector<std::pair<int32_t, int32_t>> numbered;
  for (size_t i = 0; i < run.ranks.size(); ++i) {
    traces::RankTrace& t = run.ranks[i];
    RankOps ops = analysis::recognizeForAnalysis(t, rules.all);
    analysis::keepForAnalysis(t);
    planning.push_back(
        sent(analysis::planningPartOf(ops), analysis::encodeRankOps, analysis::decodeRankOps));
    places.push_back(analysis::placeOf(ops));
    steps.push_back(analysis::stepsWithOps(ops));
    rosters.push_back(
        sent(analysis::rosterOf(t, ops), analysis::encodeCommRoster, analysis::decodeCommRoster));
    planRun.ranks.push_back(
        sent(analysis::planningTraceOf(t), traces::encodeRankTrace, traces::decodeRankTrace));
    numbered.emplace_back(t.meta.rank, t.meta.worldSize);
    held[i] = {std::move(t), std::move(ops)};
  }
  planRun.dir = run.dir;
  EXPECT_TRUE(analysis::analysableWhereRanksAre(planRun, places, rosters, true));
  auto coordinator = analysis::JobCoordinator::start(std::move(planRun), std::move(planning),
                                                     places, steps, rosters, options);
  EXPECT_NE(coordinator, nullptr);
  if (!coordinator) return {};
  const size_t replicas = coordinator->replicas();
  const std::vector<int> owner = coordinator->owners(holder, processes);
  if (owned) *owned = owner;
  const analysis::SpanningComms spanning =
      sent(coordinator->spanning(), analysis::encodeSpanningComms, analysis::decodeSpanningComms);
  std::printf("[ comms    ] %zu communicator(s) span replicas\n", spanning.ids.size());
  std::vector<analysis::ReplicaOwner> owners;
  for (int p = 0; p < processes; ++p) owners.emplace_back(numbered);
  // The ranks move once, to their replica's owner; each owner matches its replicas' comms.
  std::vector<analysis::ReplicaPackage> frames;
  std::vector<analysis::OwnedMatching> matched;
  for (size_t d = 0; d < replicas; ++d) {
    analysis::ReplicaOwner& o = owners[static_cast<size_t>(owner[d])];
    for (uint32_t r : coordinator->ranksOf(d)) {
      o.hold(r, sent(held[r].first, traces::encodeRankTrace, traces::decodeRankTrace),
             sent(held[r].second, analysis::encodeRankOps, analysis::decodeRankOps));
    }
    frames.push_back(sent(coordinator->frame(d), analysis::encodeReplicaPackage,
                          analysis::decodeReplicaPackage));
  }
  for (size_t d = 0; d < replicas; ++d) {
    matched.push_back(sent(owners[static_cast<size_t>(owner[d])].match(frames[d], spanning),
                           analysis::encodeOwnedMatching, analysis::decodeOwnedMatching));
  }
  for (const analysis::OwnedMatching& m : matched) {
    for (const analysis::SpanningCalls& sc : m.matching.spanning) {
      for (const traces::NcclOp op : sc.calls.op) {
        if (p2pAway && traces::isPointToPoint(op)) ++*p2pAway;
      }
    }
  }
  const std::vector<analysis::ReplicaAlignment> aligned = coordinator->aligned(std::move(matched));
  std::vector<analysis::BuiltReplica> built;
  for (size_t d = 0; d < replicas; ++d) {
    const auto alignment =
        sent(aligned[d], analysis::encodeReplicaAlignment, analysis::decodeReplicaAlignment);
    built.push_back(
        sent(owners[static_cast<size_t>(owner[d])].build(d, frames[d], spanning, alignment),
             analysis::encodeBuiltReplica, analysis::decodeBuiltReplica));
  }
  const std::vector<analysis::DpWaits> waits = coordinator->built(std::move(built));
  std::vector<bool> whole;
  if (coordinator->jobRounds()) {
    std::vector<analysis::OwnedCosts> costs;
    for (size_t d = 0; d < replicas; ++d) {
      costs.push_back(sent(owners[static_cast<size_t>(owner[d])].costsOf(d),
                           analysis::encodeOwnedCosts, analysis::decodeOwnedCosts));
    }
    std::vector<analysis::OwnedReplay> replays;
    if (const auto ideal = coordinator->costs(std::move(costs))) {
      for (size_t d = 0; d < replicas; ++d) {
        replays.push_back(sent(owners[static_cast<size_t>(owner[d])].replayOf(d, *ideal),
                               analysis::encodeOwnedReplay, analysis::decodeOwnedReplay));
      }
    }
    whole = coordinator->replays(std::move(replays));
  } else {
    whole = coordinator->replays({});
  }
  std::vector<analysis::AnalysedReplica> analysed;
  for (size_t d = 0; d < replicas; ++d) {
    const auto w = sent(waits[d], analysis::encodeDpWaits, analysis::decodeDpWaits);
    analysed.push_back(sent(
        owners[static_cast<size_t>(owner[d])].analyse(d, w, whole.empty() || whole[d], options, 1),
        analysis::encodeAnalysedReplica, analysis::decodeAnalysedReplica));
  }
  return coordinator->finish(std::move(analysed));
}

// The calls as recorded (every one on the world's communicator, which spans the replicas: the
// owners match their pipelines' sends and receives through its members, the coordinator the DP
// collectives), or rewritten so that the other ways of dividing them are taken too
// (split_matching.h). Whatever the rewrite does to the matching, one process and the owners must
// agree on it.
enum class Comms {
  AsRecorded,
  PairComms,     // each pair's sends and receives on a communicator of its own: owners' alone
  MixedKernels,  // run rank 0's every other send or receive an all-reduce: kernels of both kinds
  CrossPeers,    // run rank 0 sends half the run on from its peer: to another replica
};

void rewriteComms(traces::Run& run, Comms comms) {
  const std::vector<int> global = analysis::globalRanks(run);
  for (size_t r = 0; r < run.ranks.size(); ++r) {
    traces::NcclCalls& nc = *run.ranks[r].ncclCalls;
    for (size_t c = 0; c < nc.size(); ++c) {
      if (!traces::isPointToPoint(nc.op[c])) continue;
      if (comms == Comms::PairComms && nc.peer[c] >= 0) {
        const int a = std::min(global[r], nc.peer[c]), b = std::max(global[r], nc.peer[c]);
        nc.comm[c] = 1000 + static_cast<uint64_t>(a) * 4096 + static_cast<uint64_t>(b);
        nc.commRank[c] = -1;  // its peer the other member
      } else if (comms == Comms::MixedKernels && r == 0 && c % 2 == 1) {
        nc.op[c] = traces::NcclOp::AllReduce;
      } else if (comms == Comms::CrossPeers && r == 0 && nc.op[c] == traces::NcclOp::Send) {
        const int n = static_cast<int>(run.ranks.size());
        nc.peer[c] = (nc.peer[c] + n / 2) % n;
      }
    }
  }
}

class OwnedAnalysis : public ::testing::TestWithParam<Case> {};

TEST_P(OwnedAnalysis, GivesTheReportOfOneProcess) {
  const Case& c = GetParam();
  const uint64_t seed = sweepSeed(replica_jobs::kDefaultSeed);
  const JobSpec spec = replica_jobs::jobOf(c, seed);
  testing::TempDir dir;
  analyseAs(c.stack, spec, dir.path());
  keepIfAsked(dir.path(), c.name);
  SlotDraw draw(seed, c.name + "/holders");
  for (const Comms comms :
       {Comms::AsRecorded, Comms::PairComms, Comms::MixedKernels, Comms::CrossPeers}) {
    for (const bool everyGap : {true, false}) {
      // Every gap kept once, with the comms as recorded; a summary with each.
      if (everyGap && comms != Comms::AsRecorded) continue;
      analysis::AnalyzeOptions options;
      options.leaveOutWarmupStep = true;
      options.everyGap = everyGap;
      options.pipelinesListedWhole = 1;  // the others summarised: the job's rounds choose which
      traces::Run whole = imported(dir.path());
      rewriteComms(whole, comms);
      const std::string one = analysis::jsonReportText(
          analysis::analyzeRun(std::move(whole), options), 1, analysis::JsonDetail::Full);
      const int processes = draw.pick(2, 3);
      traces::Run run = imported(dir.path());
      rewriteComms(run, comms);
      std::vector<int> holder;
      std::string dealt;
      for (size_t r = 0; r < run.ranks.size(); ++r) {
        holder.push_back(draw.pick(0, processes - 1));
        dealt += (r ? " " : "") + std::to_string(holder.back());
      }
      std::printf("[ holders  ] %s: %d processes, rank -> process: %s%s, comms %d\n",
                  c.name.c_str(), processes, dealt.c_str(), everyGap ? "" : " (summary)",
                  static_cast<int>(comms));
      size_t p2pAway = 0;
      const std::string owned = analysis::jsonReportText(
          analysedWhereHeld(std::move(run), holder, processes, options, &p2pAway), 1,
          analysis::JsonDetail::Full);
      // The pipelines' own sends and receives stay with their owners, unless rewritten not to
      // (a rewrite takes only where the posts are fused or the peers named globally: see
      // OwnedAnalysisDivision).
      std::printf("[ divided  ] %zu send(s) and receive(s) left to the coordinator\n", p2pAway);
      if (comms == Comms::AsRecorded || comms == Comms::PairComms) {
        EXPECT_EQ(p2pAway, 0u);
      }
      EXPECT_NE(one.find("\"pipelines\""), std::string::npos);
      EXPECT_TRUE(owned == one) << "the report differs from one process's (every gap: " << everyGap
                                << ", comms " << static_cast<int>(comms) << ")";
      if (owned != one) {
        // The first difference, to see what it is.
        size_t at = 0;
        while (at < one.size() && at < owned.size() && one[at] == owned[at]) ++at;
        ADD_FAILURE() << "one process: ..." << one.substr(at > 200 ? at - 200 : 0, 400)
                      << "\nowners: ..." << owned.substr(at > 200 ? at - 200 : 0, 400);
      }
    }
  }
}

// A kernel that ran calls of both kinds leaves its replica's every call to the coordinator, and a
// send to another replica goes there too; the report is still one process's. On the Kineto job
// whose posts are fused and whose peers are named through the world's communicator.
TEST(OwnedAnalysisDivision, KernelsOfBothKindsAndSendsBeyondTheReplicaGoToTheCoordinator) {
  for (const Case& c : replica_jobs::cases()) {
    if (c.name != "Kineto_1F1B_FaultFree") continue;
    const uint64_t seed = sweepSeed(replica_jobs::kDefaultSeed);
    testing::TempDir dir;
    analyseAs(c.stack, replica_jobs::jobOf(c, seed), dir.path());
    for (const Comms comms : {Comms::MixedKernels, Comms::CrossPeers}) {
      analysis::AnalyzeOptions options;
      options.leaveOutWarmupStep = true;
      traces::Run whole = imported(dir.path());
      rewriteComms(whole, comms);
      const std::string one = analysis::jsonReportText(
          analysis::analyzeRun(std::move(whole), options), 1, analysis::JsonDetail::Full);
      traces::Run run = imported(dir.path());
      rewriteComms(run, comms);
      const std::vector<int> holder(run.ranks.size(), 0);
      size_t p2pAway = 0;
      const std::string owned =
          analysis::jsonReportText(analysedWhereHeld(std::move(run), holder, 2, options, &p2pAway),
                                   1, analysis::JsonDetail::Full);
      EXPECT_GT(p2pAway, 0u) << "comms " << static_cast<int>(comms);
      EXPECT_TRUE(owned == one) << "comms " << static_cast<int>(comms);
    }
    return;
  }
  FAIL() << "no Kineto_1F1B_FaultFree job among replica_jobs::cases()";
}

// Each process owns its share of the replicas, though one holds every rank: the others' move to
// them (else that one would hold the whole job once they had moved).
TEST(OwnedAnalysisOwners, EachProcessOwnsItsShareOfTheReplicas) {
  for (const Case& c : replica_jobs::cases()) {
    if (c.name != "Kineto_1F1B_FaultFree") continue;
    const JobSpec spec = replica_jobs::jobOf(c, sweepSeed(replica_jobs::kDefaultSeed));
    ASSERT_GE(spec.dp, 2);
    testing::TempDir dir;
    analyseAs(c.stack, spec, dir.path());
    analysis::AnalyzeOptions options;
    options.leaveOutWarmupStep = true;
    const std::string one = analysis::jsonReportText(
        analysis::analyzeRun(imported(dir.path()), options), 1, analysis::JsonDetail::Full);
    traces::Run run = imported(dir.path());
    const std::vector<int> holder(run.ranks.size(), 0);
    std::vector<int> owned;
    const std::string split = analysis::jsonReportText(
        analysedWhereHeld(std::move(run), holder, spec.dp, options, nullptr, &owned), 1,
        analysis::JsonDetail::Full);
    std::vector<int> each(static_cast<size_t>(spec.dp), 0);
    for (const int p : owned) ++each.at(static_cast<size_t>(p));
    for (size_t p = 0; p < each.size(); ++p) EXPECT_EQ(each[p], 1) << "process " << p;
    EXPECT_TRUE(split == one);
    return;
  }
  FAIL() << "no Kineto_1F1B_FaultFree job among replica_jobs::cases()";
}

// What one process throws, the coordinator throws, whichever replica's owner met it.
class OwnedAnalysisFailure : public ::testing::TestWithParam<Case> {};

TEST_P(OwnedAnalysisFailure, IsTheOneProcessFailure) {
  const Case& c = GetParam();
  const JobSpec spec = replica_jobs::jobOf(c, sweepSeed(replica_jobs::kDefaultSeed));
  testing::TempDir dir;
  analyseAs(c.stack, spec, dir.path());
  analysis::AnalyzeOptions options;
  options.firstStep = 1000;  // no step of the run: every replica fails to build
  std::string one, owned;
  try {
    analysis::analyzeRun(imported(dir.path()), options);
  } catch (const analysis::AnalysisInputError& e) {
    one = e.what();
  }
  traces::Run run = imported(dir.path());
  const std::vector<int> holder(run.ranks.size(), 1);
  try {
    analysedWhereHeld(std::move(run), holder, 2, options);
  } catch (const analysis::AnalysisInputError& e) {
    owned = e.what();
  }
  EXPECT_FALSE(one.empty());
  EXPECT_EQ(owned, one);
}

INSTANTIATE_TEST_SUITE_P(Jobs, OwnedAnalysis, ::testing::ValuesIn(replica_jobs::cases()),
                         [](const auto& test) { return test.param.name; });

// A slow replica on each schedule and stack: which replica fails first matters, not the fault.
std::vector<Case> slowReplicaCases() {
  std::vector<Case> out;
  for (const Case& c : replica_jobs::cases()) {
    if (c.fault == replica_jobs::Fault::SlowReplica) out.push_back(c);
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Jobs, OwnedAnalysisFailure, ::testing::ValuesIn(slowReplicaCases()),
                         [](const auto& test) { return test.param.name; });

}  // namespace
}  // namespace bubblescope::tracegen
