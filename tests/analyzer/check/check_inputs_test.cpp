// `bubblescope check` given each kind of file a user has, as the run and as the baseline: a trace
// the analyzer reads (NDTimeline, Kineto, Nsight Systems) is analysed and gives the verdict of the
// report `analyze --format json` writes for it; anything else is one line naming the file and
// what it is, exit 2.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>

#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"
#include "tests/tracegen/execution.h"
#include "tests/tracegen/kineto_stack.h"
#include "tests/tracegen/megatron_execution.h"
#include "tests/tracegen/ndtimeline_writer.h"
#include "tests/tracegen/nsys_stack.h"
#include "tests/traces/import/compress.h"

namespace bubblescope {
namespace {

namespace fs = std::filesystem;
using testing::ProcessResult;
using testing::runBubblescope;

// A healthy and a slow-stage job as each stack traces it, and each trace's JSON report as
// `analyze --format json` writes it, made once.
class CheckInputs : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new testing::TempDir("bubblescope-check-inputs");
    for (const bool slow : {false, true}) {
      const std::string name = slow ? "slow" : "base";
      tracegen::MegatronJob megatron;
      megatron.pp = 2, megatron.dp = 1, megatron.m = 4;
      if (slow) megatron.slowStage = 1, megatron.slowStageFactor = 1.5;
      // The healthy timeline gzipped, as NDTimeline's are often kept.
      tracegen::writeNdTimeline(tracegen::executeMegatron(megatron),
                                *dir_ / ("ndtimeline-" + name + (slow ? ".json" : ".json.gz")),
                                /*gzip=*/!slow);

      tracegen::JobSpec spec;
      spec.p = 2, spec.m = 4;
      if (slow) spec.slowStage = 1, spec.slowFactor = 1.5;
      const tracegen::JobTimeline job = tracegen::execute(spec);
      const fs::path kineto = *dir_ / ("kineto-" + name);
      fs::create_directories(kineto);
      for (int r = 0; r < spec.p; ++r) {
        testing::writeFile(kineto / ("rank" + std::to_string(r) + ".pt.trace.json"),
                           tracegen::kinetoRankJson(job, r));
      }
      tracegen::NsysOptions nsys;
      nsys.ranksPerHost = spec.p;  // one export holds the job
      const fs::path exports = *dir_ / ("nsys-" + name);
      fs::create_directories(exports);
      fs::rename(tracegen::writeNsysExports(job, exports, nsys).at(0),
                 *dir_ / ("nsys-" + name + ".sqlite"));
    }
    testing::writeFile(*dir_ / "kineto-rank0.json",
                       testing::readFile(*dir_ / "kineto-base" / "rank0.pt.trace.json"));
    for (const char* trace :
         {"ndtimeline-base.json.gz", "ndtimeline-slow.json", "kineto-base", "kineto-slow",
          "nsys-base.sqlite", "nsys-slow.sqlite", "kineto-rank0.json"}) {
      const ProcessResult r =
          runBubblescope({"analyze", path(trace), "--format", "json", "-o", report(trace)});
      ASSERT_EQ(r.exitCode, 0) << trace << ": " << r.err;
    }
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static std::string path(const std::string& name) { return (*dir_ / name).string(); }
  // The JSON report `analyze --format json` wrote for a trace.
  static std::string report(const std::string& trace) { return path(trace + ".report.json"); }

  static testing::TempDir* dir_;
};

testing::TempDir* CheckInputs::dir_ = nullptr;

std::string firstLine(const std::string& s) {
  return s.substr(0, s.find('\n'));
}

std::string afterFirstLine(const std::string& s) {
  const size_t n = s.find('\n');
  return n == std::string::npos ? "" : s.substr(n + 1);
}

// `check` on traces and on their reports: one exit code, one verdict, line for line (the first
// line names the inputs).
void expectTheVerdictOfTheReports(const std::string& base, const std::string& baseReport,
                                  const std::string& current, const std::string& currentReport) {
  const ProcessResult traces = runBubblescope({"check", "--baseline", base, current});
  const ProcessResult reports = runBubblescope({"check", "--baseline", baseReport, currentReport});
  EXPECT_EQ(traces.exitCode, reports.exitCode) << traces.out << traces.err << reports.err;
  EXPECT_EQ(traces.err, reports.err);
  EXPECT_EQ(afterFirstLine(traces.out), afterFirstLine(reports.out));
}

struct TraceKind {
  const char* base;
  const char* slow;
  const char* what;  // as check's first line says
};

constexpr TraceKind kTraceKinds[] = {
    {"ndtimeline-base.json.gz", "ndtimeline-slow.json", "NDTimeline timeline"},
    {"kineto-base", "kineto-slow", "run directory"},
    {"nsys-base.sqlite", "nsys-slow.sqlite", "Nsight Systems export"},
};

TEST_F(CheckInputs, ATraceAsTheRunGivesTheVerdictOfItsJsonReport) {
  for (const TraceKind& k : kTraceKinds) {
    SCOPED_TRACE(k.slow);
    const ProcessResult r = runBubblescope({"check", "--baseline", report(k.base), path(k.slow)});
    EXPECT_EQ(r.exitCode, 1) << r.out << r.err;  // the slow stage is a regression
    EXPECT_EQ(firstLine(r.out), "bubblescope check: " + path(k.slow) + " (" + k.what +
                                    ", analysed) against the baseline " + report(k.base));
    expectTheVerdictOfTheReports(report(k.base), report(k.base), path(k.slow), report(k.slow));
  }
}

TEST_F(CheckInputs, ATraceAsTheBaselineGivesTheVerdictOfItsJsonReport) {
  for (const TraceKind& k : kTraceKinds) {
    SCOPED_TRACE(k.base);
    expectTheVerdictOfTheReports(path(k.base), report(k.base), report(k.slow), report(k.slow));
    expectTheVerdictOfTheReports(path(k.slow), report(k.slow), path(k.base), report(k.base));
  }
}

TEST_F(CheckInputs, AKinetoFileIsAnalysedAsTheJobItHolds) {
  const ProcessResult r = runBubblescope(
      {"check", "--baseline", report("kineto-rank0.json"), path("kineto-rank0.json")});
  EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_EQ(firstLine(r.out), "bubblescope check: " + path("kineto-rank0.json") +
                                  " (Kineto JSON, analysed) against the baseline " +
                                  report("kineto-rank0.json"));
  expectTheVerdictOfTheReports(report("kineto-rank0.json"), report("kineto-rank0.json"),
                               path("kineto-rank0.json"), report("kineto-rank0.json"));
}

TEST_F(CheckInputs, ACompressedReportIsRead) {
  testing::TempDir d;
  testing::writeFile(d / "base.json.gz",
                     testing::gzipped(testing::readFile(report("ndtimeline-base.json.gz"))));
  const ProcessResult r = runBubblescope(
      {"check", "--baseline", (d / "base.json.gz").string(), report("ndtimeline-slow.json")});
  EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
  expectTheVerdictOfTheReports((d / "base.json.gz").string(), report("ndtimeline-base.json.gz"),
                               report("ndtimeline-slow.json"), report("ndtimeline-slow.json"));
}

// Exit 2, nothing on stdout, one line on stderr: `file` and what it is.
void expectRefused(const std::vector<std::string>& args, const std::string& file,
                   const std::string& what) {
  const ProcessResult r = runBubblescope(args);
  EXPECT_EQ(r.exitCode, 2) << r.out << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "bubblescope: " + file + ": " + what + "\n");
}

TEST_F(CheckInputs, WhatIsNeitherAReportNorATraceIsNamedInOneLine) {
  testing::TempDir d;
  const std::string trace = path("ndtimeline-base.json.gz");
  auto made = [&](const std::vector<std::string>& args) {
    const ProcessResult r = runBubblescope(args);
    EXPECT_LE(r.exitCode, 1) << r.err;
  };
  // bubblescope's own outputs that have no bubbles to compare, or not as JSON.
  testing::writeFile(d / "answers.json",
                     R"({"tool": "bubblescope", "kind": "hang-answers", "host": "node0", )"
                     R"("min_wait_s": 1, "answers": [{"pid": "4242", "rank": "0"}]})");
  made({"hang", trace, "--format", "json", "-o", (d / "hang.json").string()});
  made({"export", "perfetto", trace, "-o", (d / "perfetto.json").string()});
  made({"analyze", trace, "--format", "md", "-o", (d / "report.md").string()});
  made({"analyze", trace, "--format", "html", "-o", (d / "report.html").string()});
  made({"analyze", trace, "--format", "junit", "-o", (d / "report.xml").string()});
  made({"analyze", trace, "-o", (d / "report.txt").string()});
  made({"check", "--baseline", report("ndtimeline-base.json.gz"), trace, "--junit",
        (d / "check.xml").string()});
  // Other files.
  testing::writeFile(d / "result.json", R"({"mfu": 0.41, "step_ms": [812, 809]})");
  testing::writeFile(d / "empty.json", "");
  testing::writeFile(d / "notes.txt", "the bubbles looked fine\n");
  testing::writeFile(d / "notes.txt.gz", testing::gzipped("the bubbles looked fine\n"));
  std::string bytes;  // what nsys profile writes is its own binary format
  for (int i = 0; i < 5000; ++i) bytes += static_cast<char>((i * 7919) % 251);
  testing::writeFile(d / "profile.nsys-rep", bytes);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((d / "cache.db").c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE blobs (key TEXT)", nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);

  const std::string toJson =
      ", not the JSON one check reads; write that with 'bubblescope "
      "analyze RUN --format json'";
  const struct {
    const char* file;
    std::string what;
  } cases[] = {
      {"answers.json",
       "saved hang answers ('bubblescope hang --save'), not a report or a trace; "
       "'bubblescope hang " +
           (d / "answers.json").string() + "' reads them"},
      {"hang.json",
       "a hang report ('bubblescope hang --format json'), not the analysis report "
       "check compares; write that with 'bubblescope analyze RUN --format json'"},
      {"perfetto.json",
       "a Perfetto trace bubblescope exported ('bubblescope export perfetto'), "
       "not a report or a trace of a run; check the run it was exported from"},
      {"report.md", "a Markdown report" + toJson},
      {"report.html", "an HTML report" + toJson},
      {"report.xml", "a JUnit report" + toJson},
      {"report.txt", "a text report" + toJson},
      {"check.xml", "the JUnit verdict of a 'bubblescope check', not a report or a trace"},
      {"result.json",
       "JSON, but neither a bubblescope report nor a trace (no \"tool\": "
       "\"bubblescope\", no \"traceEvents\"); write a report with 'bubblescope "
       "analyze RUN --format json'"},
      {"empty.json", "an empty file, not a report or a trace"},
      {"notes.txt", "neither JSON nor SQLite, so not a report or a trace"},
      {"notes.txt.gz", "compressed, but not a JSON trace inside"},
      {"cache.db",
       "a SQLite database, but neither a bubblescope trace nor an Nsight Systems export"},
      {"profile.nsys-rep",
       "an Nsight Systems report (.nsys-rep), not its SQLite export; 'nsys export --type sqlite " +
           (d / "profile.nsys-rep").string() + "' writes the export bubblescope reads"},
  };
  const std::string base = report("ndtimeline-base.json.gz");
  for (const auto& c : cases) {
    SCOPED_TRACE(c.file);
    const std::string file = (d / c.file).string();
    expectRefused({"check", "--baseline", base, file}, file, c.what);
    expectRefused({"check", "--baseline", file, base}, file, c.what);
  }
}

}  // namespace
}  // namespace bubblescope
