// `watch` on a step the analysis refuses: the reason is said for the first step, once more for the
// second, and then only as a range when a step reads again or the reason changes. A node's watch
// of a multi-node job misses the other nodes' ranks on every step: one line a step said nothing
// new (cli/watch_session.h).
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "cli/watch_session.h"
#include "tests/analyzer/synthetic_run.h"

namespace bubblescope::cli {
namespace {

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(WatchUnread, AReasonThatHoldsStepAfterStepIsSaidOnceThenAsARange) {
  testing::SyntheticJob job;
  job.schedule = engine::Schedule::oneF1B(2, 4);
  job.steps = 8;
  const traces::Run whole = testing::synthesize(job);
  traces::Run half = whole;  // stage 1's rank on another node: missing here
  half.ranks.pop_back();
  half.dir = "/runs/job-7";  // named once by the watch's header, not again on each line

  std::ostringstream out;
  WatchSession watch(out, {}, "", "test");
  analysis::AnalyzeOptions options;
  for (int64_t step = 1; step <= 5; ++step) watch.read(half, options, step);
  const std::string unread = out.str();
  EXPECT_EQ(count(unread, "missing ranks"), 1u) << unread;
  EXPECT_NE(unread.find("step 1  not read: missing ranks: "), std::string::npos) << unread;
  EXPECT_EQ(unread.find("/runs/job-7"), std::string::npos) << unread;
  EXPECT_NE(unread.find("step 2  not read either, for the same reason"), std::string::npos)
      << unread;
  EXPECT_EQ(count(unread, "\n"), 2u) << unread;  // steps 3-5 add no line

  watch.read(whole, options, 6);
  const std::string after = out.str().substr(unread.size());
  EXPECT_EQ(after.rfind("steps 2-5  not read, for the same reason as step 1\n", 0), 0u) << after;
  EXPECT_NE(after.find("step 6 "), std::string::npos) << after;
  EXPECT_EQ(watch.stepsWatched(), 1);

  // Said again once it comes back after a step that read.
  watch.read(half, options, 7);
  EXPECT_EQ(count(out.str(), "missing ranks"), 2u) << out.str();

  // Two steps in a run: the "either" line said the second, no range repeats it ("steps 8-8").
  watch.read(half, options, 8);
  const size_t before = out.str().size();
  watch.read(whole, options, 6);
  const std::string closed = out.str().substr(before);
  EXPECT_EQ(closed.rfind("step 6 ", 0), 0u) << out.str();
  EXPECT_EQ(count(out.str(), "steps 8-8"), 0u) << out.str();
  EXPECT_NE(out.str().find("step 8  not read either"), std::string::npos) << out.str();
}

}  // namespace
}  // namespace bubblescope::cli
