// Numbers found by the adversarial probes of issue 28: an integer narrowed without a range check
// (read as another number), a number on the command line that was not one (nan, inf, out of
// range), a report field of the wrong type. Each is refused in one line naming the file, field or
// option, exit code 2.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
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

// Exit code 2 and one line that says `mustSay`.
void expectOneLine(const ProcessResult& r, const std::string& mustSay) {
  EXPECT_FALSE(r.timedOut) << "hung: " << mustSay;
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(mustSay), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// Two processes' answers as `hang --all --save` writes them.
const std::string kAnswers = R"J({"tool": "bubblescope", "kind": "hang-answers", "host": "n0",
 "answers": [
  {"pid": "12", "rank": "0", "world_size": "2", "run_id": "r", "alive_ns": "1000000000",
   "open_ranges": "0", "nccl_calls": "0", "call_counts": "0"},
  {"pid": "13", "rank": "1", "world_size": "2", "run_id": "r", "alive_ns": "1000000000",
   "open_ranges": "0", "nccl_calls": "0", "call_counts": "0", "env.BUBBLESCOPE_PP_RANK": "1"}]})J";

// "rank": "4294967297" was read as rank 1.
TEST(HostileNumbers, SavedHangAnswersOutOfRangeAreRefusedNamingTheFileAndField) {
  TempDir tmp;
  const fs::path file = tmp / "answers.json";
  writeFile(file, kAnswers);
  const ProcessResult good = runBubblescope({"hang", file.string()}, refusalOptions());
  ASSERT_EQ(good.exitCode, 0) << good.err;
  struct Case {
    std::string from, to, says;
  };
  const std::string f = file.string();
  const Case cases[] = {
      {R"("rank": "1")", R"("rank": "4294967297")",
       f + ": the answer of pid 13: field 'rank' = '4294967297' is not a whole number from -1 to "
           "2147483647"},
      {R"("rank": "1")", R"("rank": "one")", f + ": the answer of pid 13: field 'rank' = 'one'"},
      {R"("rank": "1")", R"("rank": "1.5")", f + ": the answer of pid 13: field 'rank' = '1.5'"},
      {R"("rank": "1")", R"("rank": "-2")", f + ": the answer of pid 13: field 'rank' = '-2'"},
      {R"("world_size": "2", "run_id": "r", "alive_ns": "1000000000",
   "open_ranges": "0", "nccl_calls": "0", "call_counts": "0", "env)",
       R"("world_size": "2147483648", "run_id": "r", "alive_ns": "1000000000",
   "open_ranges": "0", "nccl_calls": "0", "call_counts": "0", "env)",
       f + ": the answer of pid 13: field 'world_size' = '2147483648' is not a whole number"},
      {R"("pid": "13")", R"("pid": "0")", f + ": the answer of pid 0: field 'pid' = '0'"},
      {R"("env.BUBBLESCOPE_PP_RANK": "1")", R"("env.BUBBLESCOPE_PP_RANK": "4294967297")",
       f + " (the answer of pid 13): meta BUBBLESCOPE_PP_RANK = '4294967297' is not a whole "
           "number from 0 to 2147483646"},
      {R"("env.BUBBLESCOPE_PP_RANK": "1")", R"("env.BUBBLESCOPE_DP_RANK": "-1")",
       f + " (the answer of pid 13): meta BUBBLESCOPE_DP_RANK = '-1' is not a whole number"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.to);
    writeFile(file, replaced(kAnswers, c.from, c.to));
    expectOneLine(runBubblescope({"hang", file.string()}, refusalOptions()), c.says);
  }
}

// A 1F1B run of 2 stages x 4 microbatches; with `slowStage`, that stage's ops take twice as long.
void writeRun(const fs::path& dir, int slowStage = -1) {
  SyntheticJob job;
  job.schedule = engine::Schedule::oneF1B(2, 4);
  job.steps = 3;
  job.cost = [slowStage](int stage, int, const engine::Op& op) -> TimeNs {
    const TimeNs ms = op.kind == engine::OpKind::BW ? 4'000'000 : 2'000'000;
    return stage == slowStage ? 2 * ms : ms;
  };
  fs::create_directories(dir);
  for (const auto& t : synthesize(job).ranks) {
    traces::writeRankTrace(t, dir / ("rank-0000" + std::to_string(t.meta.rank) + ".sqlite"));
  }
}

// Every numeric option refuses what is not a number in its range, naming the option and what was
// typed: nan and inf passed CLI11's checks (nan compares false with every bound), and its bound
// was DBL_MAX in 300 digits.
TEST(HostileNumbers, EveryNumericOptionRefusesWhatIsNotANumberInItsRange) {
  const std::vector<std::string> check = {"check", "--baseline", "b.json", "c.json"};
  struct Option {
    std::vector<std::string> command;    // all the command needs but the option
    std::string option, name;            // as typed, as named in the message
    std::vector<std::string> bad;        // beyond the values every option refuses
    std::vector<std::string> tail = {};  // after the option
  };
  const std::vector<std::string> whole = {"1.5", "2147483648", "4294967297", "-1"};
  const Option options[] = {
      {{"simulate", "--schedule", "1f1b", "-m", "8"}, "-p", "--stages", whole},
      {{"simulate", "--schedule", "1f1b", "-p", "4"}, "-m", "--microbatches", {"0", "1.5"}},
      {{"simulate", "--schedule", "interleaved", "-p", "4", "-m", "8"}, "--v", "--v", {"0"}},
      {{"simulate", "--schedule", "1f1b", "-p", "4", "-m", "8"},
       "--transfer",
       "--transfer",
       {"-1", "1e400"}},
      {{"simulate", "--schedule", "1f1b", "-p", "4", "-m", "8"}, "--width", "--width", {"19"}},
      {{"engine", "run", "--schedule", "1f1b", "-m", "8"}, "-p", "--stages", {"0", "257"}},
      {{"engine", "run", "--schedule", "1f1b", "-p", "4"}, "-m", "--microbatches", whole},
      {{"engine", "run", "--schedule", "1f1b", "-p", "4", "-m", "8"}, "--steps", "--steps", {"0"}},
      {{"engine", "run", "--schedule", "1f1b", "-p", "4", "-m", "8"},
       "--optimizer-ms",
       "--optimizer-ms",
       {"-1"}},
      {{"engine", "run", "--schedule", "1f1b", "-p", "4", "-m", "8"},
       "--payload-bytes",
       "--payload-bytes",
       {"-1", "1073741825"}},
      {{"engine", "run", "--schedule", "1f1b", "-p", "4", "-m", "8"}, "--seed", "--seed", {"-1"}},
      {{"engine", "run", "--schedule", "1f1b", "-p", "4", "-m", "8"},
       "--timeout",
       "--timeout",
       {"0", "-1"}},
      {{"engine", "run", "--schedule", "1f1b", "-p", "4", "-m", "8"},
       "--jitter",
       "--jitter",
       {"-1", "101"}},
      {{"engine", "run", "--schedule", "1f1b", "-p", "4", "-m", "8"},
       "--mlp-width",
       "--mlp-width",
       {"0", "4097"}},
      {{"engine", "run", "--schedule", "1f1b", "-p", "4", "-m", "8"},
       "--mlp-batch",
       "--mlp-batch",
       {"0"}},
      {{"engine", "run", "--schedule", "1f1b", "-p", "4", "-m", "8"},
       "--mlp-lr",
       "--mlp-lr",
       {"0", "-1"}},
      {{"demo"}, "-p", "-p", {"1", "17"}},
      {{"demo"}, "-m", "-m", {"0", "257"}},
      {{"demo"}, "--steps", "--steps", {"2", "51"}},
      {{"record"}, "--hang-timeout", "--hang-timeout", {"0", "-1"}, {"--", "true"}},
      {{"attach", "--all"}, "--steps", "--steps", {"0", "1.5"}},
      {{"attach", "--all"}, "--duration", "--duration", {"0", "31622401"}},
      {{"attach"}, "", "pid", {"0", "-1", "1.5"}},
      {{"detach"}, "", "pid", {"0"}},
      {check, "--max-bubble-pp", "--max-bubble-pp", {"-1", "101"}},
      {check, "--max-idle-pp", "--max-idle-pp", {"-1"}},
      {check, "--max-slowdown", "--max-slowdown", {"-1"}},
      {check, "--max-step-time-pct", "--max-step-time-pct", {"-1"}},
      {{"hang", "--all"}, "--min-wait", "--min-wait", {"-1"}},
      {{"hang"}, "--pid", "--pid", {"0", "1.5", "7,abc"}},
      {{"import", "kineto", "t.json", "-o", "out"}, "--threads", "--threads", {"0", "1025"}},
      {{"view", "run"}, "--step", "--step", {"-1", "1.5"}},
      {{"view", "run"}, "--compare-step", "--compare-step", {"-1"}},
      {{"view", "run"}, "--dp", "--dp", {"-1", "2147483647"}},
      {{"view", "--attach"}, "--keep", "--keep", {"0", "601"}},
      {{"view", "--attach"}, "--after-steps", "--after-steps", {"0", "1.5"}},
      {{"view", "--attach"}, "--pid", "--pid", {"0", "1.5"}},
  };
  int runs = 0;
  for (const Option& o : options) {
    std::vector<std::string> values = {"nan", "inf", "abc", "1e400"};
    values.insert(values.end(), o.bad.begin(), o.bad.end());
    for (const std::string& v : values) {
      std::vector<std::string> args = o.command;
      // "--opt=-inf": a value starting with '-' is not taken for an option.
      if (o.option.empty()) {
        args.push_back(v);
      } else if (o.option.starts_with("--")) {
        args.push_back(o.option + "=" + v);
      } else {
        args.insert(args.end(), {o.option, v});
      }
      args.insert(args.end(), o.tail.begin(), o.tail.end());
      std::string line;
      for (const std::string& a : args) line += a + " ";
      SCOPED_TRACE(line);
      const ProcessResult r = runBubblescope(args, refusalOptions());
      expectOneLine(r, o.name + ": must be ");
      // A list (--pid 7,abc) names its bad item.
      EXPECT_NE(r.err.find("(got " + v.substr(v.rfind(',') + 1) + ")"), std::string::npos) << r.err;
      EXPECT_LT(r.err.size(), 200u) << r.err;
      ++runs;
    }
  }
  EXPECT_GT(runs, 150);
}

// check --max-slowdown nan --max-bubble-pp nan --max-step-time-pct nan passed a run twice as
// slow ("OK: no regression", exit 0).
TEST(HostileNumbers, CheckWithNanThresholdsIsRefusedNotPassed) {
  TempDir tmp;
  writeRun(tmp / "base");
  writeRun(tmp / "slow", 1);
  const std::string base = (tmp / "base.json").string();
  ASSERT_EQ(runBubblescope({"analyze", (tmp / "base").string(), "--format", "json", "-o", base},
                           refusalOptions())
                .exitCode,
            0);
  const ProcessResult gated =
      runBubblescope({"check", "--baseline", base, (tmp / "slow").string()}, refusalOptions());
  ASSERT_EQ(gated.exitCode, 1) << gated.out << gated.err;  // it is slower
  expectOneLine(
      runBubblescope({"check", "--baseline", base, (tmp / "slow").string(), "--max-slowdown", "nan",
                      "--max-bubble-pp", "nan", "--max-step-time-pct", "nan"},
                     refusalOptions()),
      "--max-bubble-pp: must be a number from 0 to 100 (got nan)");
}

// A report with "slowdown": 1e400 or "schedule": {"m": "eight"} given to check was "internal
// error: [json.exception...]", exit 3, no file named.
TEST(HostileNumbers, CheckNamesTheReportAndFieldOfAValueItCannotRead) {
  TempDir tmp;
  writeRun(tmp / "run");
  const fs::path base = tmp / "base.json";
  ASSERT_EQ(
      runBubblescope({"analyze", (tmp / "run").string(), "--format", "json", "-o", base.string()},
                     refusalOptions())
          .exitCode,
      0);
  const std::string report = readFile(base);
  struct Case {
    std::string from, to, says;
  };
  const fs::path bad = tmp / "current.json";
  const std::string f = bad.string();
  const Case cases[] = {
      {"\"slowdown\": ", "\"slowdown\": 1e400, \"was\": ",
       f + ": not a valid bubblescope report (\"slowdown\" holds a number beyond a double's "
           "range)"},
      {"\"m\": ", "\"m\": \"eight\", \"was\": ",
       f + ": not a valid bubblescope report (pipelines[0].schedule.m is not an integer)"},
      {"\"schema_version\": ", "\"schema_version\": 4294967298, \"was\": ",
       f + ": written by a newer bubblescope (report schema_version 4294967298"},
      {"\"dp_rank\": ", "\"dp_rank\": 4294967296, \"was\": ",
       f + ": not a valid bubblescope report (pipelines[0].dp_rank = 4294967296 is out of range"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.to);
    writeFile(bad, replaced(report, c.from, c.to));
    expectOneLine(runBubblescope({"check", "--baseline", base.string(), f}, refusalOptions()),
                  c.says);
    // As the baseline too.
    expectOneLine(runBubblescope({"check", "--baseline", f, base.string()}, refusalOptions()),
                  c.says);
  }
}

// The fuzz seeds of these cases are the inputs as the probes wrote them: an nsys export whose
// start is text, NDTimeline timelines whose tid is beyond int's ranks, whose DP and TP ranks
// overflow their size, and two processes named "DP rank 0" (folded into a TP group of two).
TEST(HostileNumbers, ImportedIntegersThatDoNotFitAreRefusedInOneLine) {
  const fs::path src = BUBBLESCOPE_SOURCE_DIR;
  const fs::path nsys = src / "tests/fuzz/corpus/nsys_sqlite";
  const fs::path nd = src / "tests/traces/import/fuzz/corpus";
  TempDir tmp;
  struct Case {
    fs::path file;
    std::string says;
  };
  const Case cases[] = {
      {nsys / "text-start.sqlite",
       "corrupt: CUPTI_ACTIVITY_KIND_KERNEL.start holds text, not an integer"},
      {nsys / "real-start.sqlite",
       "corrupt: CUPTI_ACTIVITY_KIND_KERNEL.start holds a real number, not an integer"},
      {nsys / "null-start.sqlite",
       "corrupt: CUPTI_ACTIVITY_KIND_RUNTIME.start holds NULL, not an integer"},
      {nsys / "text-correlation.sqlite",
       "corrupt: CUPTI_ACTIVITY_KIND_MEMCPY.correlationId holds text, not an integer"},
      {nsys / "text-mpi-rank.sqlite", "corrupt: MPI_RANKS.rank holds text, not an integer"},
      {nd / "ndtimeline_tid_beyond_int.json",
       "tid (rank * 5 + category) = 21474836485 is out of range (0 to 10737418239)"},
      {nd / "ndtimeline_dp_rank_max.json",
       "process_name 'DP rank 2147483647' (pid 0): DP rank 2147483647 is out of range (0 to "
       "2147483646)"},
      {nd / "ndtimeline_tp_rank_max.json",
       "thread_name 'PP rank 0, TP rank 2147483647, compute' (pid 0, tid 0): TP rank 2147483647 is "
       "out of range (0 to 2147483646)"},
      {nd / "ndtimeline_two_dp_rank_0.json",
       "pids 0 and 1 both stand for DP rank 0, so ranks 0 and 1 would both be its PP rank 0, TP "
       "rank 0"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.file.filename().string());
    expectOneLine(runBubblescope({"analyze", c.file.string()}, refusalOptions()),
                  c.file.string() + ": " + c.says);
  }
}

// "two traces claim rank 0: rank-00000.sqlite and rank-00000.sqlite" named one file twice.
TEST(HostileNumbers, TwoFilesOfOneNameAreToldApartByTheirDirectories) {
  TempDir tmp;
  writeRun(tmp / "node-a");
  writeRun(tmp / "node-b");
  expectOneLine(runBubblescope({"analyze", (tmp / "node-a" / "rank-00000.sqlite").string(),
                                (tmp / "node-b" / "rank-00000.sqlite").string()},
                               refusalOptions()),
                "two traces claim rank 0: node-a/rank-00000.sqlite and node-b/rank-00000.sqlite");
}

}  // namespace
}  // namespace bubblescope::testing
