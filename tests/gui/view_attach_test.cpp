// bubblescope view --attach on reference-engine jobs running under a dormant agent (issue 30):
// screenshots taken one after the other show newer steps, with the stages' ops in their colors;
// a job that exits or hangs while attached ends the wait with one line, the frame of what was
// shown written; nothing to attach to is one sentence and exit 2. Each job has a runtime directory
// of its own, so --attach finds only its processes.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "gui/timeline/colors.h"
#include "tests/agent/agent_test_support.h"
#include "tests/agent/background_process.h"
#include "tests/agent/live_engine_job.h"
#include "tests/gui/screenshot_support.h"
#include "tests/support/temp_dir.h"

namespace bubblescope::testing {
namespace {

namespace fs = std::filesystem;
using std::chrono::seconds;

std::vector<std::string> viewLines(const std::string& err) {
  std::vector<std::string> out;
  size_t at = 0;
  for (size_t nl; (nl = err.find('\n', at)) != std::string::npos; at = nl + 1) {
    const std::string line = err.substr(at, nl - at);
    if (line.rfind("bubblescope: view: ", 0) == 0) out.push_back(line);
  }
  return out;
}

// The newest step the viewer says its frame shows; -1 if it said none.
int64_t newestStep(const std::string& err) {
  static const std::regex shown(
      R"(bubblescope: view: steps (\d+)-(\d+) of run \S+ shown, newest step (\d+))");
  std::smatch m;
  if (!std::regex_search(err, m, shown)) return -1;
  return std::stoll(m[3]);
}

int64_t pixelsOf(const Image& img, gui::Rgba color) {
  int64_t n = 0;
  for (int y = 0; y < img.h; ++y) {
    for (int x = 0; x < img.w; ++x) n += near(img.at(x, y), color);
  }
  return n;
}

TEST(ViewAttach, ScreenshotsTakenLaterShowNewerSteps) {
  if (!haveXvfb()) GTEST_SKIP() << "no xvfb-run";
  LiveEngineJob job({"--op-ms", "2", "--steps", "200"});
  const auto shot = [&](const std::string& name) {
    return screenshot({"--attach", "--screenshot", (job.dir() / name).string(), "--after-steps",
                       "2", "--size", "1280x720"},
                      job.env());
  };
  const ProcessResult first = shot("first.png");
  ASSERT_EQ(first.exitCode, 0) << first.out << first.err;
  const ProcessResult second = shot("second.png");
  ASSERT_EQ(second.exitCode, 0) << second.out << second.err;
  const int64_t a = newestStep(first.err), b = newestStep(second.err);
  ASSERT_GE(a, 0) << first.err;
  EXPECT_GT(b, a) << first.err << second.err;

  const Image one = readPng(job.dir() / "first.png"), two = readPng(job.dir() / "second.png");
  ASSERT_EQ(one.w, 1280);
  ASSERT_EQ(two.w, 1280);
  // Each frame is a recorded run's: every op kind of 1F1B (F, and B with W fused) in its color.
  for (const Image* img : {&one, &two}) {
    EXPECT_GT(pixelsOf(*img, gui::opColor(analysis::OpKind::F)), 500);
    EXPECT_GT(pixelsOf(*img, gui::opColor(analysis::OpKind::BW)), 500);
  }
  // The frames differ: the newer steps are drawn, not the same picture twice.
  int64_t differ = 0;
  for (int y = 0; y < std::min(one.h, two.h); ++y) {
    for (int x = 0; x < one.w; ++x) differ += one.at(x, y) != two.at(x, y);
  }
  EXPECT_GT(differ, 100);
}

TEST(ViewAttach, AJobThatExitsWhileAttachedEndsTheWaitWithOneLine) {
  if (!haveXvfb()) GTEST_SKIP() << "no xvfb-run";
  LiveEngineJob job(
      {"--op-ms", "2", "--steps", "100"});  // ~7 s: it ends long before a million steps
  const fs::path png = job.dir() / "end.png";
  const ProcessResult r =
      screenshot({"--attach", "--screenshot", png.string(), "--after-steps", "1000000"}, job.env());
  EXPECT_EQ(job.wait(), 0);
  EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
  int ended = 0;
  for (const std::string& line : viewLines(r.err)) {
    ended += line.rfind("bubblescope: view: the job ended: ", 0) == 0;
  }
  EXPECT_EQ(ended, 1) << r.err;
  EXPECT_GE(newestStep(r.err), 0) << r.err;  // the steps shown before the end are in the frame
  EXPECT_TRUE(fs::exists(png)) << r.err;
}

TEST(ViewAttach, AJobThatHangsEndsTheWaitWithOneLine) {
  if (!haveXvfb()) GTEST_SKIP() << "no xvfb-run";
  // Stage 1 stops before F3 of step 100 (~7 s in) and never returns; the engine's watchdog ends
  // the job long after the viewer gave up waiting.
  LiveEngineJob job({"--op-ms", "2", "--steps", "200", "--hang", "1:3:100", "--timeout", "40"});
  const fs::path png = job.dir() / "hang.png";
  const ProcessResult r =
      screenshot({"--attach", "--screenshot", png.string(), "--after-steps", "1000000"}, job.env());
  EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
  int silent = 0;
  for (const std::string& line : viewLines(r.err)) {
    silent += line.rfind("bubblescope: view: no step finished for ", 0) == 0;
  }
  EXPECT_EQ(silent, 1) << r.err;
  EXPECT_LT(newestStep(r.err), 100) << r.err;
  EXPECT_GE(newestStep(r.err), 0) << r.err;
  EXPECT_TRUE(fs::exists(png)) << r.err;
}

TEST(ViewAttach, NothingToAttachToIsOneSentenceAndExitTwo) {
  TempDir rt;
  fs::permissions(rt.path(), fs::perms::owner_all);
  ProcessOptions o = cleanEnv({{"BUBBLESCOPE_RUNTIME_DIR", rt.path().string()}});
  o.unsetEnv.push_back("XDG_RUNTIME_DIR");
  o.timeout = seconds(30);
  const ProcessResult r = runBubblescope({"view", "--attach"}, o);
  EXPECT_EQ(r.exitCode, 2) << r.out << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("no attachable processes"), std::string::npos) << r.err;
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"view", "--attach", "somewhere"},
        std::vector<std::string>{"view", "--all"},
        std::vector<std::string>{"view", "--attach", "--step", "3"},
        std::vector<std::string>{"view", "--attach", "--after-steps", "2"},
        std::vector<std::string>{"view"}}) {
    const ProcessResult u = runBubblescope(bad, o);
    EXPECT_EQ(u.exitCode, 2) << bad.back() << ": " << u.err;
    EXPECT_EQ(std::count(u.err.begin(), u.err.end(), '\n'), 1) << u.err;
  }
}

}  // namespace
}  // namespace bubblescope::testing
