// bubblescope view's input errors: each is one line and exit code 2, never a crash, with or
// without a display (and, in builds without the viewer, the command says so).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "tests/analyzer/synthetic_run.h"
#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"
#include "traces/sqlite/trace_writer.h"

namespace bubblescope::testing {
namespace {

// A display no X server listens on: GLFW cannot connect to it.
const std::map<std::string, std::string> kDeadDisplay = {{"DISPLAY", ":987"}};

void writeRun(const std::filesystem::path& dir) {
  SyntheticJob job;
  job.schedule = engine::Schedule::oneF1B(2, 4);
  job.steps = 2;
  const traces::Run run = synthesize(job);
  std::filesystem::create_directories(dir);
  for (const auto& t : run.ranks) {
    traces::writeRankTrace(t, dir / ("rank-0000" + std::to_string(t.meta.rank) + ".sqlite"));
  }
}

size_t lines(const std::string& s) {
  return static_cast<size_t>(std::count(s.begin(), s.end(), '\n'));
}

ProcessResult view(const std::vector<std::string>& args, ProcessOptions o = {}) {
  std::vector<std::string> argv = {"view"};
  argv.insert(argv.end(), args.begin(), args.end());
  o.timeout = std::chrono::seconds(60);
  return runBubblescope(argv, o);
}

#if BUBBLESCOPE_TEST_HAVE_VIEWER

TEST(ViewCli, PathThatIsNotARunIsOneLineExitTwo) {
  TempDir tmp;
  writeFile(tmp / "notes.txt", "not a trace\n");
  ProcessOptions o;
  o.env = kDeadDisplay;
  for (const std::string& path : {(tmp / "missing").string(), (tmp / "notes.txt").string()}) {
    const ProcessResult r = view({path}, o);
    EXPECT_EQ(r.exitCode, 2) << path << ": " << r.err;
    EXPECT_EQ(lines(r.err), 1u) << r.err;
    EXPECT_EQ(r.err.rfind("bubblescope: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(path), std::string::npos) << r.err;
  }
}

TEST(ViewCli, NoDisplaySuggestsScreenshotUnderXvfbOrAnalyze) {
  TempDir tmp;
  writeRun(tmp / "run");
  ProcessOptions o;
  o.unsetEnv = {"DISPLAY", "WAYLAND_DISPLAY"};
  const ProcessResult r = view({(tmp / "run").string()}, o);
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("no display"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--screenshot"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("xvfb-run"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("bubblescope analyze"), std::string::npos) << r.err;
}

// An X server that cannot start is the machine's failure, not the user's input nor a
// regression: exit 3 and say so, not xvfb-run's own exit 1 (check's regression code).
TEST(ViewCli, XvfbThatCannotStartIsExitThreeAndSaysSo) {
  TempDir tmp;
  writeRun(tmp / "run");
  const auto bin = tmp / "bin";
  std::filesystem::create_directories(bin);
  writeFile(bin / "xvfb-run",
            "#!/bin/sh\necho 'xvfb-run: error: Xvfb failed to start' >&2\nexit 1\n");
  std::filesystem::permissions(bin / "xvfb-run", std::filesystem::perms::owner_all);
  ProcessOptions o;
  o.unsetEnv = {"DISPLAY", "WAYLAND_DISPLAY", "BUBBLESCOPE_VIEW_UNDER_XVFB"};
  o.env = {{"PATH", bin.string() + ":/usr/bin:/bin"}};
  const auto png = tmp / "x.png";
  const ProcessResult r = view({(tmp / "run").string(), "--screenshot", png.string()}, o);
  EXPECT_EQ(r.exitCode, 3) << r.err;
  EXPECT_NE(r.err.find("Xvfb could not start"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(png.string()), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(png));
}

TEST(ViewCli, DisplayThatCannotBeOpenedIsExitTwo) {
  TempDir tmp;
  writeRun(tmp / "run");
  ProcessOptions o;
  o.env = kDeadDisplay;
  o.unsetEnv = {"WAYLAND_DISPLAY"};
  const ProcessResult r =
      view({(tmp / "run").string(), "--screenshot", (tmp / "x.png").string()}, o);
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_NE(r.err.find("cannot open a window"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(":987"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(tmp / "x.png"));
}

TEST(ViewCli, BadOptionsAreOneLineExitTwo) {
  TempDir tmp;
  writeRun(tmp / "run");
  const std::string run = (tmp / "run").string();
  ProcessOptions o;
  o.env = kDeadDisplay;
  struct Case {
    std::vector<std::string> args;
    const char* says;
  };
  const Case cases[] = {
      {{run, "--step", "99"}, "has no step 99"},
      {{run, "--range=5:1"}, "--range"},
      {{run, "--range", "soon"}, "--range"},
      {{run, "--size", "10x10"}, "--size"},
      {{run, "--dp", "3"}, "DP replica"},
      {{run, "--compare", (tmp / "missing").string()}, "missing"},
  };
  for (const Case& c : cases) {
    const ProcessResult r = view(c.args, o);
    EXPECT_EQ(r.exitCode, 2) << c.says << ": " << r.err;
    EXPECT_EQ(lines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
  }
}

#else

TEST(ViewCli, WithoutTheViewerTheCommandSaysSo) {
  TempDir tmp;
  writeRun(tmp / "run");
  const ProcessResult r = view({(tmp / "run").string()});
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_NE(r.err.find("built without the viewer"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("bubblescope analyze"), std::string::npos) << r.err;
}

#endif

}  // namespace
}  // namespace bubblescope::testing
