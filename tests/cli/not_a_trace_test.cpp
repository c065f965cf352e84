// What bubblescope wrote that is no trace (a report in any format, saved hang answers, a hang
// report, a Perfetto export, check's JUnit verdict), and an Nsight Systems report not yet
// exported, given to a command that reads traces (analyze, view, export, import, hang): one line
// naming the file and what it is, exit 2 (issue 28, rule 10). A Perfetto export was analysed
// ("pipeline 0: no step could be re-run by the simulator"), imported and hung without a word; a
// report over 1 MiB was read as a Kineto trace.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "reference_engine/schedule/schedule.h"
#include "tests/analyzer/synthetic_run.h"
#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"
#include "traces/sqlite/trace_writer.h"

namespace bubblescope::testing {
namespace {

namespace fs = std::filesystem;

// A run, and what each command that writes something wrote for it, made once.
class NotATrace : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir("bubblescope-not-a-trace");
    SyntheticJob job;
    job.schedule = engine::Schedule::oneF1B(2, 4);
    job.steps = 2;
    fs::create_directories(*dir_ / "run");
    for (const auto& t : synthesize(job).ranks) {
      traces::writeRankTrace(
          t, *dir_ / "run" / ("rank-0000" + std::to_string(t.meta.rank) + ".sqlite"));
    }
    const std::string run = path("run");
    for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
             {"analyze", run, "--format", "json", "-o", path("report.json")},
             {"analyze", run, "-o", path("report.txt")},
             {"analyze", run, "--format", "md", "-o", path("report.md")},
             {"analyze", run, "--format", "html", "-o", path("report.html")},
             {"analyze", run, "--format", "junit", "-o", path("report.xml")},
             {"check", "--baseline", path("report.json"), run, "--junit", path("check.xml")},
             {"hang", run, "--format", "json", "-o", path("hang.json")},
             {"export", "perfetto", run, "-o", path("perfetto.json")},
         }) {
      const ProcessResult r = runBubblescope(args, refusalOptions());
      ASSERT_LE(r.exitCode, 1) << args[0] << ": " << r.err;
    }
    // The same report over 1 MiB (a large job's is), its keys sorted as nlohmann writes them:
    // "tool" comes last.
    writeFile(*dir_ / "large-report.json",
              nlohmann::json::parse(readFile(*dir_ / "report.json")).dump(400));
    ASSERT_GT(fs::file_size(*dir_ / "large-report.json"), size_t{1} << 20);
    writeFile(*dir_ / "answers.json",
              R"({"tool": "bubblescope", "kind": "hang-answers", "host": "node0", )"
              R"("min_wait_s": 1, "answers": [{"pid": "4242", "rank": "0"}]})");
    std::string bytes;  // what nsys profile writes is its own binary format
    for (int i = 0; i < 5000; ++i) bytes += static_cast<char>((i * 7919) % 251);
    writeFile(*dir_ / "profile.nsys-rep", bytes);
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static std::string path(const std::string& name) { return (*dir_ / name).string(); }

  static TempDir* dir_;
};

TempDir* NotATrace::dir_ = nullptr;

// Every command that reads a run, given `file` where the run belongs.
std::vector<std::vector<std::string>> commandsGiven(const std::string& file,
                                                    const std::string& out) {
  return {
      {"analyze", file},
      {"view", file},
      {"export", "perfetto", file, "-o", out + "/perfetto.json"},
      {"import", "kineto", file, "-o", out + "/imported"},
      {"import", "nsys", file, "-o", out + "/imported"},
      {"hang", file},
  };
}

void expectRefused(const std::vector<std::string>& args, const std::string& file,
                   const std::string& what) {
  std::string command;
  for (const std::string& a : args) command += a + " ";
  SCOPED_TRACE(command);
  const ProcessResult r = runBubblescope(args, refusalOptions());
  EXPECT_FALSE(r.timedOut);
  EXPECT_EQ(r.exitCode, 2) << r.out << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "bubblescope: " + file + ": " + what + "\n");
}

TEST_F(NotATrace, EachOfBubblescopesOwnOutputsIsNamedByEveryCommandThatReadsARun) {
  const std::string report =
      "a bubblescope analysis report, not a trace; use the run it was written from ('bubblescope "
      "check' compares reports)";
  const std::string otherFormat = ", not a trace; use the run it was written from";
  const struct {
    const char* file;
    std::string what;
  } cases[] = {
      {"report.json", report},
      {"large-report.json", report},
      {"report.txt", "a text report" + otherFormat},
      {"report.md", "a Markdown report" + otherFormat},
      {"report.html", "an HTML report" + otherFormat},
      {"report.xml", "a JUnit report" + otherFormat},
      {"check.xml", "the JUnit verdict of a 'bubblescope check', not a trace"},
      {"hang.json",
       "a hang report ('bubblescope hang --format json'), not a trace; use the run it was written "
       "for"},
      {"perfetto.json",
       "a Perfetto trace bubblescope exported ('bubblescope export perfetto'), not a trace of a "
       "run; use the run it was exported from, or open it at https://ui.perfetto.dev"},
  };
  TempDir out;
  for (const auto& c : cases) {
    const std::string file = path(c.file);
    for (const auto& args : commandsGiven(file, out.path().string())) {
      expectRefused(args, file, c.what);
    }
  }
  EXPECT_TRUE(fs::is_empty(out.path())) << "nothing is written for an input refused";
}

// Saved answers are what `hang` reads; every other command names them and says so.
TEST_F(NotATrace, SavedHangAnswersPointToHang) {
  const std::string file = path("answers.json");
  TempDir out;
  for (const auto& args : commandsGiven(file, out.path().string())) {
    if (args[0] == "hang") continue;
    expectRefused(
        args, file,
        "saved hang answers ('bubblescope hang --save'), not a trace; 'bubblescope hang " + file +
            "' reads them");
  }
  // Given with a run, they are not read as one.
  expectRefused({"hang", path("run"), file}, file,
                "saved hang answers ('bubblescope hang --save'), not a trace; 'bubblescope hang " +
                    file + "' reads them");
}

TEST_F(NotATrace, AnNsightSystemsReportSaysHowToExportIt) {
  const std::string file = path("profile.nsys-rep");
  TempDir out;
  for (const auto& args : commandsGiven(file, out.path().string())) {
    expectRefused(args, file,
                  "an Nsight Systems report (.nsys-rep), not its SQLite export; 'nsys export "
                  "--type sqlite " +
                      file + "' writes the export bubblescope reads");
  }
}

// The run those outputs were written from is still read, with them beside its traces.
TEST_F(NotATrace, ARunDirectoryHoldingItsReportsIsStillRead) {
  TempDir run;
  for (const auto& entry : fs::directory_iterator(*dir_ / "run")) {
    fs::copy(entry.path(), run / entry.path().filename().string());
  }
  for (const char* file : {"report.json", "large-report.json", "report.md", "hang.json",
                           "perfetto.json", "answers.json", "profile.nsys-rep"}) {
    fs::copy(*dir_ / file, run / file);
  }
  const ProcessResult r = runBubblescope({"analyze", run.path().string()}, refusalOptions());
  EXPECT_EQ(r.exitCode, 0) << r.err;
}

}  // namespace
}  // namespace bubblescope::testing
