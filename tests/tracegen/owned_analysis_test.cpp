// A job analysed with each replica where its ranks are (owned_analysis.h) gives the report one
// process gives of the whole run: its ranks dealt at random to 2-3 processes (each rank's holder
// drawn and printed), the coordinator fed only the light parts, every message between processes
// made into bytes and back; on the jobs of replica_jobs.h (Kineto and nsys; 1F1B, interleaved,
// ZB-V; fault-free, slow link, slow replica; skewed clocks, fused and unfused posts, both rank
// orders), every gap kept and a summary that lists one replica whole.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "analyzer/analyze.h"
#include "analyzer/pipeline/pipeline_trace.h"
#include "analyzer/pipeline/topology.h"
#include "analyzer/recognize/rank_ops_codec.h"
#include "analyzer/owned_analysis.h"
#include "analyzer/owned_rounds_codec.h"
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
analysis::AnalysisResult analysedWhereHeld(traces::Run&& run, const std::vector<int>& holder,
                                           int processes, const analysis::AnalyzeOptions& options) {
  const analysis::RuleSets rules({});
  // Each holder: its ranks recognised and kept whole; the coordinator: their light parts.
  std::vector<std::pair<traces::RankTrace, RankOps>> held(run.ranks.size());
  traces::Run lightRun;
  std::vector<RankOps> light;
  std::vector<analysis::RankPlace> places;
  std::vector<std::vector<int64_t>> steps;
  for (size_t i = 0; i < run.ranks.size(); ++i) {
    traces::RankTrace& t = run.ranks[i];
    RankOps ops = analysis::recognizeForAnalysis(t, rules.all);
    analysis::keepForAnalysis(t);
    light.push_back(
        sent(analysis::lightPartOf(ops), analysis::encodeRankOps, analysis::decodeRankOps));
    places.push_back(analysis::placeOf(ops));
    steps.push_back(analysis::stepsWithOps(ops));
    lightRun.ranks.push_back(
        sent(analysis::lightTraceOf(t), traces::encodeRankTrace, traces::decodeRankTrace));
    held[i] = {std::move(t), std::move(ops)};
  }
  lightRun.dir = run.dir;
  EXPECT_TRUE(analysis::analysableWhereRanksAre(lightRun, places, true));
  auto coordinator = analysis::JobCoordinator::start(std::move(lightRun), std::move(light), places,
                                                     steps, options);
  EXPECT_NE(coordinator, nullptr);
  if (!coordinator) return {};
  const size_t replicas = coordinator->replicas();
  const std::vector<int> owner = coordinator->owners(holder, processes);
  std::vector<analysis::ReplicaOwner> owners;
  for (int p = 0; p < processes; ++p) owners.emplace_back(run.ranks.size());
  // The ranks move once, to their replica's owner, with its package.
  std::vector<analysis::BuiltReplica> built;
  for (size_t d = 0; d < replicas; ++d) {
    analysis::ReplicaOwner& o = owners[static_cast<size_t>(owner[d])];
    for (uint32_t r : coordinator->ranksOf(d)) {
      o.hold(r, sent(held[r].first, traces::encodeRankTrace, traces::decodeRankTrace),
             sent(held[r].second, analysis::encodeRankOps, analysis::decodeRankOps));
    }
  }
  std::vector<analysis::ReplicaPackage> packages;
  for (size_t d = 0; d < replicas; ++d) packages.push_back(coordinator->takePackage(d));
  coordinator->packagesMade();
  for (size_t d = 0; d < replicas; ++d) {
    const auto package =
        sent(packages[d], analysis::encodeReplicaPackage, analysis::decodeReplicaPackage);
    built.push_back(sent(owners[static_cast<size_t>(owner[d])].build(d, package),
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

class OwnedAnalysis : public ::testing::TestWithParam<Case> {};

TEST_P(OwnedAnalysis, GivesTheReportOfOneProcess) {
  const Case& c = GetParam();
  const uint64_t seed = sweepSeed(replica_jobs::kDefaultSeed);
  const JobSpec spec = replica_jobs::jobOf(c, seed);
  testing::TempDir dir;
  analyseAs(c.stack, spec, dir.path());
  keepIfAsked(dir.path(), c.name);
  SlotDraw draw(seed, c.name + "/holders");
  for (const bool everyGap : {true, false}) {
    analysis::AnalyzeOptions options;
    options.leaveOutWarmupStep = true;
    options.everyGap = everyGap;
    options.pipelinesListedWhole = 1;  // the others summarised: the job's rounds choose which
    const std::string one = analysis::jsonReportText(
        analysis::analyzeRun(imported(dir.path()), options), 1, analysis::JsonDetail::Full);
    const int processes = draw.pick(2, 3);
    traces::Run run = imported(dir.path());
    std::vector<int> holder;
    std::string dealt;
    for (size_t r = 0; r < run.ranks.size(); ++r) {
      holder.push_back(draw.pick(0, processes - 1));
      dealt += (r ? " " : "") + std::to_string(holder.back());
    }
    std::printf("[ holders  ] %s: %d processes, rank -> process: %s%s\n", c.name.c_str(), processes,
                dealt.c_str(), everyGap ? "" : " (summary)");
    const std::string owned =
        analysis::jsonReportText(analysedWhereHeld(std::move(run), holder, processes, options), 1,
                                 analysis::JsonDetail::Full);
    EXPECT_NE(one.find("\"pipelines\""), std::string::npos);
    EXPECT_TRUE(owned == one) << "the report differs from one process's (every gap: " << everyGap
                              << ")";
    if (owned != one) {
      // The first difference, to see what it is.
      size_t at = 0;
      while (at < one.size() && at < owned.size() && one[at] == owned[at]) ++at;
      ADD_FAILURE() << "one process: ..." << one.substr(at > 200 ? at - 200 : 0, 400)
                    << "\nowners: ..." << owned.substr(at > 200 ? at - 200 : 0, 400);
    }
  }
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
