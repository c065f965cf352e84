// `bubblescope hang` on Kineto traces of a generated pipeline job (kineto_stack.h) that hung in
// the middle of a transfer between stages 1 and 2: every kernel running then never finished, and
// the profiler collected 5 s later. The report must find the two sides' kernels stuck on the
// device (matched calls: NCCL stuck, not the schedule); the same job's healthy trace must not.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "analyzer/hang/hang_analysis.h"
#include "analyzer/hang/hang_output.h"
#include "tests/support/temp_dir.h"
#include "tests/tracegen/cases.h"
#include "tests/tracegen/execution.h"
#include "tests/tracegen/kineto_stack.h"
#include "traces/import/run_import.h"

namespace bubblescope::tracegen {
namespace {

using analysis::hang::HangReport;
using analysis::hang::Verdict;
using analysis::hang::Wait;

HangReport hangOf(const JobTimeline& job, TimeNs hangAt, const std::filesystem::path& dir) {
  KinetoOptions o;
  o.base = job.spec.start - 2'000'000'000;
  o.hangAt = hangAt;
  for (int r = 0; r < job.spec.p; ++r) {
    testing::writeFile(dir / ("rank" + std::to_string(r) + ".pt.trace.json"),
                       kinetoRankJson(job, r, o));
  }
  const auto imported = traces::import::importRun(traces::import::resolveInputs({dir}));
  return analysis::hang::analyzeHang(imported.run);
}

// The middle of the transfer of stage 1's first send/receive batch with stage 2 in the last step.
TimeNs midTransfer(const JobTimeline& job) {
  const RankTimeline& s1 = job.ranks[1];
  for (const Kernel& k : s1.kernels) {
    if (k.kind != KernelKind::SendRecv) continue;
    const NcclCall& c = s1.calls[static_cast<size_t>(s1.batches[k.owner].front())];
    if (c.peer == 2 && c.step == job.spec.steps - 1) return (k.transferStart + k.end) / 2;
  }
  return 0;
}

// A wait of `rank` on `on` whose kernel never finished and whose partner posted its call.
const Wait* stuckWait(const HangReport& rep, int rank, int on) {
  for (const Wait& w : rep.ranks[static_cast<size_t>(rank)].waits) {
    if (w.kernelLaunch != 0 && w.partnerPosted &&
        std::find(w.on.begin(), w.on.end(), on) != w.on.end()) {
      return &w;
    }
  }
  return nullptr;
}

TEST(HangStack, KinetoTraceOfAJobHungInATransferSaysBothKernelsNeverFinished) {
  const JobTimeline job = execute(standardCases().front().spec);
  const TimeNs at = midTransfer(job);
  ASSERT_GT(at, 0);
  testing::TempDir dir;
  const HangReport rep = hangOf(job, at, dir.path());
  ASSERT_EQ(rep.ranks.size(), 4u);
  EXPECT_EQ(rep.verdict, Verdict::NcclStuck) << rep.diagnosis;
  EXPECT_EQ(rep.diagnosis.rfind("NCCL stuck: ", 0), 0u) << rep.diagnosis;
  EXPECT_NE(rep.diagnosis.find("never finished"), std::string::npos) << rep.diagnosis;
  ASSERT_EQ(rep.culprits.size(), 2u) << rep.diagnosis;
  EXPECT_EQ(std::abs(rep.culprits[0] - rep.culprits[1]), 1) << rep.diagnosis;  // neighbours
  // The transfer it hung in: stage 1's call on stage 2 and stage 2's on stage 1.
  const Wait* w1 = stuckWait(rep, 1, 2);
  const Wait* w2 = stuckWait(rep, 2, 1);
  ASSERT_NE(w1, nullptr);
  ASSERT_NE(w2, nullptr);
  EXPECT_NE(w1->what.find(" peer="), std::string::npos) << w1->what;
  EXPECT_LE(w1->kernelLaunch, at);
  for (const auto& r : rep.ranks) EXPECT_EQ(r.end, analysis::hang::RankEnd::Stopped) << r.label;
  std::ostringstream text;
  analysis::hang::printHangReport(rep, text);
  EXPECT_NE(text.str().find(w1->what + ": its kernel never finished"), std::string::npos)
      << text.str();
}

TEST(HangStack, HealthyKinetoTraceHasNoKernelStuck) {
  const JobTimeline job = execute(standardCases().front().spec);
  testing::TempDir dir;
  const HangReport rep = hangOf(job, 0, dir.path());
  EXPECT_EQ(rep.verdict, Verdict::Clean) << rep.diagnosis;
  for (const auto& r : rep.ranks) {
    for (const Wait& w : r.waits) EXPECT_EQ(w.kernelLaunch, 0) << r.label << ": " << w.what;
  }
}

}  // namespace
}  // namespace bubblescope::tracegen
