// CUDA capture end to end without a GPU: cupti_test_app, with the agent preloaded and a fake
// libcupti (fake_cupti.cpp, a test double with CUPTI's activity API) in place of the real one.
// CUPTI traces kernels only while a capture window is open: a dormant job pays nothing per
// launch, and what a window saw reaches the trace.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "tests/agent/agent_test_support.h"
#include "tests/support/temp_dir.h"

namespace bubblescope::testing {
namespace {

namespace fs = std::filesystem;

ProcessResult runCuptiApp(const fs::path& dir, bool dormant, bool watch = false) {
  std::map<std::string, std::string> env = {{"LD_PRELOAD", kAgentLibrary},
                                            {"BUBBLESCOPE_OUTPUT_DIR", dir.string()},
                                            {"BUBBLESCOPE_CUDA", "on"},
                                            {"BUBBLESCOPE_CUPTI_PATH", FAKE_CUPTI_LIBRARY}};
  if (dormant) env["BUBBLESCOPE_DORMANT"] = "1";
  if (watch) env["BUBBLESCOPE_RUNTIME_DIR"] = (dir.parent_path() / "rt").string();
  ProcessOptions o = cleanEnv(std::move(env));
  o.unsetEnv.push_back("XDG_RUNTIME_DIR");
  o.timeout = std::chrono::seconds(60);
  if (watch) return runProcess({CUPTI_TEST_APP, FAKE_CUPTI_LIBRARY, "watch"}, o);
  return runProcess({CUPTI_TEST_APP, FAKE_CUPTI_LIBRARY}, o);
}

std::vector<std::string> kernelNames(const fs::path& file) {
  std::vector<std::string> names;
  for (const auto& row : sqlRows(file,
                                 "SELECT s.value FROM kernels k JOIN strings s ON "
                                 "s.id = k.name_id ORDER BY k.start")) {
    names.push_back(row[0]);
  }
  return names;
}

TEST(CuptiRecord, DormantJobTracesKernelsOnlyInsideTheWindow) {
  TempDir tmp;
  const ProcessResult r = runCuptiApp(tmp.path() / "run", true);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  // Off while dormant, on from the window's first event, off again once the writer has
  // flushed the closed window.
  EXPECT_NE(r.out.find("start traced=0\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("window traced=1\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("after traced=0\n"), std::string::npos) << r.out;

  const auto files = traceFiles(tmp.path() / "run");
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(kernelNames(files[0]),
            (std::vector<std::string>{"in_window", "in_window", "in_window"}));
  EXPECT_EQ(sqlText(files[0], "SELECT value FROM meta WHERE key = 'cuda_capture'"), "1");
  // CUPTI produced nothing outside the window for the decoder to throw away.
  EXPECT_EQ(sqlText(files[0], "SELECT value FROM meta WHERE key = 'extra.cupti_records'"), "3");
  EXPECT_EQ(sqlText(files[0], "SELECT value FROM meta WHERE key = 'extra.cupti_outside_windows'"),
            "0");
}

TEST(CuptiRecord, RecordingJobTracesKernelsFromTheStart) {
  TempDir tmp;
  const ProcessResult r = runCuptiApp(tmp.path() / "run", false);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("start traced=1\n"), std::string::npos) << r.out;
  // "stop" ends the recording that began at start, so tracing goes off after it too.
  EXPECT_NE(r.out.find("after traced=0\n"), std::string::npos) << r.out;
  const auto files = traceFiles(tmp.path() / "run");
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(kernelNames(files[0]),
            (std::vector<std::string>{"before_window", "in_window", "in_window", "in_window"}));
}

// Watch: kernels reach the memory window's snapshot, never a file, and CUPTI stops tracing when
// the memory window ends.
TEST(CuptiRecord, MemoryWindowTracesKernelsIntoItsSnapshotAndNoFile) {
  TempDir tmp;
  const ProcessResult r = runCuptiApp(tmp.path() / "run", true, true);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("watch ok=1\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("watching traced=1\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("snapshot kernels=3 window=watch\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("stop ok=1\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("after traced=0\n"), std::string::npos) << r.out;
  EXPECT_TRUE(traceFiles(tmp.path() / "run").empty());
  EXPECT_TRUE(agentLines(r.err).empty()) << r.err;
}

}  // namespace
}  // namespace bubblescope::testing
