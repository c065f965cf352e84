// The capture agent's own CUDA+NCCL capture of generated jobs: each rank replayed through NVTX,
// the fake libnccl.so.2 and the fake libcupti under the real agent, read back as a run directory
// and analysed, against the generator's truth (the same cases and checks as every stack).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "analyzer/report/figures.h"
#include "tests/support/temp_dir.h"
#include "tests/tracegen/agent_plan.h"
#include "tests/tracegen/agent_stack.h"
#include "tests/tracegen/cases.h"
#include "tests/tracegen/expect_found.h"
#include "tests/tracegen/stack_analysis.h"
#include "traces/sqlite/run_reader.h"

namespace bubblescope::tracegen {
namespace {

// ---- The cases ----

class AgentCases : public ::testing::TestWithParam<Case> {};

TEST_P(AgentCases, AnalysisFindsWhatTheGeneratorDid) {
  testing::TempDir dir;
  const StackRun run = analyseAs(Stack::Agent, GetParam().spec, dir.path());
  expectFound(run, GetParam());
}

INSTANTIATE_TEST_SUITE_P(StackAnalysis, AgentCases, ::testing::ValuesIn(standardCases()),
                         [](const ::testing::TestParamInfo<Case>& i) { return i.param.name; });

// ---- What the agent's traces hold ----

// The slow-stage case recorded once per clock, shared by the checks of the traces themselves.
struct Recorded {
  testing::TempDir dir;
  JobTimeline job;
  traces::Run run;
};

const Recorded& recorded(AgentClock clock) {
  static std::map<AgentClock, std::unique_ptr<Recorded>> runs;
  auto& r = runs[clock];
  if (!r) {
    r = std::make_unique<Recorded>();
    r->job = execute(standardCases()[1].spec);
    r->run = traces::readRun(recordAgentRun(r->job, r->dir.path(), clock));
  }
  return *r;
}

class AgentTrace : public ::testing::TestWithParam<AgentClock> {};

TimeNs skewOf(const JobSpec& s, int rank) {
  return rank < static_cast<int>(s.clockSkew.size()) ? s.clockSkew[rank] : 0;
}

// Sorted starts and ends, each relative to the first start: the GPU timeline up to a shift.
std::pair<std::vector<TimeNs>, std::vector<TimeNs>> shape(
    std::vector<std::pair<TimeNs, TimeNs>> k) {
  TimeNs first = INT64_MAX;
  for (const auto& [s, e] : k) first = std::min(first, s);
  std::vector<TimeNs> starts, ends;
  for (const auto& [s, e] : k) {
    starts.push_back(s - first);
    ends.push_back(e - first);
  }
  std::sort(starts.begin(), starts.end());
  std::sort(ends.begin(), ends.end());
  return {starts, ends};
}

TEST_P(AgentTrace, KernelsKeepTheGeneratorsDeviceTimesOnEachRanksSkewedClock) {
  const traces::Run& run = recorded(GetParam()).run;
  const JobTimeline& job = recorded(GetParam()).job;
  ASSERT_EQ(run.ranks.size(), job.ranks.size());
  std::vector<TimeNs> firstRecorded, firstTrue;
  for (size_t r = 0; r < run.ranks.size(); ++r) {
    const traces::RankTrace& t = run.ranks[r];
    EXPECT_EQ(t.meta.rank, static_cast<int>(r));
    EXPECT_TRUE(t.meta.cudaCapture) << t.meta.cudaNote;
    // Every kernel ran inside the capture window: the process waited for its GPU before exiting.
    EXPECT_EQ(t.meta.extra.at("cupti_outside_windows"), "0") << "rank " << r;
    std::vector<std::pair<TimeNs, TimeNs>> recorded, truth;
    for (size_t i = 0; i < t.kernels->size(); ++i)
      recorded.push_back({t.kernels->start[i], t.kernels->end[i]});
    for (const Kernel& k : job.ranks[r].kernels) truth.push_back({k.start, k.end});
    ASSERT_EQ(recorded.size(), truth.size()) << "rank " << r;
    const auto [rs, re] = shape(recorded);
    const auto [ts, te] = shape(truth);
    // CUPTI's times come through the agent's clock conversion: within a microsecond or two.
    for (size_t i = 0; i < rs.size(); ++i) {
      ASSERT_NEAR(rs[i], ts[i], 2'000) << "rank " << r << " start " << i;
      ASSERT_NEAR(re[i], te[i], 2'000) << "rank " << r << " end " << i;
    }
    firstRecorded.push_back(*std::min_element(t.kernels->start.begin(), t.kernels->start.end()));
    firstTrue.push_back(std::min_element(truth.begin(), truth.end())->first +
                        skewOf(job.spec, static_cast<int>(r)));
  }
  // Across ranks the timelines differ by the generator's times and each rank's clock skew.
  for (size_t r = 1; r < firstRecorded.size(); ++r) {
    EXPECT_NEAR(firstRecorded[r] - firstRecorded[0], firstTrue[r] - firstTrue[0], 20'000)
        << "rank " << r;
  }
}

TEST_P(AgentTrace, EveryNcclKernelJoinsTheCallsItCarries) {
  const traces::Run& run = recorded(GetParam()).run;
  const JobTimeline& job = recorded(GetParam()).job;
  for (size_t r = 0; r < run.ranks.size(); ++r) {
    const traces::RankTrace& t = run.ranks[r];
    const RankTimeline& tl = job.ranks[r];
    std::map<uint64_t, traces::NcclOp> opOfCall;
    for (size_t i = 0; i < t.ncclCalls->size(); ++i)
      opOfCall[t.ncclCalls->id[i]] = t.ncclCalls->op[i];
    std::multimap<uint32_t, uint64_t> callsOf;
    for (size_t i = 0; i < t.correlations->size(); ++i) {
      if (t.correlations->externalKind[i] == traces::ExternalKind::NcclCall) {
        callsOf.emplace(t.correlations->correlation[i], t.correlations->externalId[i]);
      }
    }
    std::map<size_t, int> kernelsWithCalls;  // data-moving calls per SendRecv kernel -> kernels
    int allReduces = 0;
    for (size_t i = 0; i < t.kernels->size(); ++i) {
      const std::string_view name = t.strings.at(t.kernels->name[i]);
      size_t p2p = 0, collectives = 0;
      const auto [a, b] = callsOf.equal_range(t.kernels->correlation[i]);
      for (auto it = a; it != b; ++it) {
        const traces::NcclOp op = opOfCall.at(it->second);
        p2p += op == traces::NcclOp::Send || op == traces::NcclOp::Recv;
        collectives += op == traces::NcclOp::AllReduce;
      }
      if (name.starts_with("ncclDevKernel_SendRecv")) ++kernelsWithCalls[p2p];
      if (name.starts_with("ncclDevKernel_AllReduce")) allReduces += collectives == 1 ? 1 : 0;
    }
    std::map<size_t, int> batches;
    for (const auto& batch : tl.batches) ++batches[batch.size()];
    EXPECT_EQ(kernelsWithCalls, batches) << "rank " << r;
    EXPECT_EQ(allReduces, job.spec.steps) << "rank " << r;
  }
}

// On the replay's clock the agent's host timestamps are the plan's, to the nanoseconds the clock
// moves per read: the analysis never sees when a loaded machine got round to the replay.
TEST(AgentTraceOnReplayClock, HostTimesAreThePlans) {
  const Recorded& rec = recorded(AgentClock::Replay);
  for (size_t r = 0; r < rec.run.ranks.size(); ++r) {
    const ReplayPlan plan = agentReplayPlan(rec.job, static_cast<int>(r));
    std::vector<TimeNs> planned;
    for (const ReplayAction& a : plan.actions) {
      if (a.verb == ReplayVerb::Push) planned.push_back(a.at);
    }
    const traces::RankTrace& t = rec.run.ranks[r];
    ASSERT_EQ(t.ranges->size(), planned.size()) << "rank " << r;
    for (size_t i = 0; i < planned.size(); ++i) {
      ASSERT_NEAR(t.ranges->start[i] - t.ranges->start[0], planned[i] - planned[0], 1'000)
          << "rank " << r << " range " << i;
    }
  }
}

// CUPTI's times reach the trace through the agent's clock anchors; on the replay's clock those are
// read on the clock the host times come from, so each NCCL kernel is launched inside the NCCL call
// that made it, as in the plan, where a call lasts a few nanoseconds. (Anchors read on the
// machine's clock before the replay started put a rank's launches 16 ns before their calls, and
// a job without step markers was then cut into steps 2 ms apart from its labelled twin.)
TEST(AgentTraceOnReplayClock, NcclKernelsAreLaunchedInsideTheirCalls) {
  const Recorded& rec = recorded(AgentClock::Replay);
  for (size_t r = 0; r < rec.run.ranks.size(); ++r) {
    const traces::RankTrace& t = rec.run.ranks[r];
    std::set<uint32_t> fromNccl;  // correlation ids of launches an NCCL call made
    for (size_t i = 0; i < t.correlations->size(); ++i) {
      if (t.correlations->externalKind[i] == traces::ExternalKind::NcclCall)
        fromNccl.insert(t.correlations->correlation[i]);
    }
    int launches = 0;
    for (size_t a = 0; a < t.apiCalls->size(); ++a) {
      if (fromNccl.count(t.apiCalls->correlation[a]) == 0) continue;
      ++launches;
      bool inside = false;
      for (size_t c = 0; c < t.ncclCalls->size() && !inside; ++c) {
        inside = t.ncclCalls->thread[c] == t.apiCalls->thread[a] &&
                 t.ncclCalls->start[c] <= t.apiCalls->start[a] &&
                 t.apiCalls->end[a] <= t.ncclCalls->end[c];
      }
      ASSERT_TRUE(inside) << "rank " << r << ": the launch at " << t.apiCalls->start[a]
                          << " lies in no NCCL call of its thread";
    }
    EXPECT_GT(launches, 0) << "rank " << r;
  }
}

INSTANTIATE_TEST_SUITE_P(Clocks, AgentTrace,
                         ::testing::Values(AgentClock::Replay, AgentClock::Machine),
                         [](const ::testing::TestParamInfo<AgentClock>& i) {
                           return i.param == AgentClock::Replay ? "ReplayClock" : "MachineClock";
                         });

}  // namespace
}  // namespace bubblescope::tracegen
