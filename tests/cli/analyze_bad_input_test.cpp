// `bubblescope analyze` on runs that cannot be analysed: one sentence naming the file or
// directory and what is wrong, exit code 2, never a crash or a stack trace.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <utility>

#include "reference_engine/schedule/schedule.h"
#include "tests/analyzer/synthetic_run.h"
#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"
#include "traces/sqlite/trace_writer.h"

namespace bubblescope::testing {
namespace {

namespace fs = std::filesystem;

fs::path rankFile(const fs::path& dir, int rank) {
  return dir / ("rank-0000" + std::to_string(rank) + ".sqlite");
}

// A 4-stage 1F1B run of two steps written as the agent would write it: one file per rank.
void writeRun(const fs::path& dir, const std::string& runId = "synthetic",
              const std::string& opPrefix = "") {
  SyntheticJob job;
  job.schedule = engine::Schedule::oneF1B(4, 4);
  job.steps = 2;
  traces::Run run = synthesize(job);
  for (auto& t : run.ranks) {
    t.meta.runId = runId;
    if (!opPrefix.empty()) {
      // Renaming every string hides the ops from every rule set, as an unannotated job would.
      // Ids stay the same: id 0 is the empty string, the others are interned in their order.
      traces::StringTable renamed;
      for (traces::StringId id = 1; id < t.strings.size(); ++id) {
        renamed.intern(opPrefix + std::string(t.strings.at(id)));
      }
      t.strings = std::move(renamed);
    }
    writeRankTrace(t, rankFile(dir, t.meta.rank));
  }
}

void expectOneLineError(const ProcessResult& r, const std::string& mustName,
                        const std::string& mustSay) {
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(mustName), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(mustSay), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("terminate"), std::string::npos) << r.err;
}

TEST(AnalyzeBadInput, AGoodRunAnalyses) {
  TempDir dir;
  writeRun(dir.path());
  const auto r = runBubblescope({"analyze", dir.path().string(), "--format", "json"});
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("\"schema_version\""), std::string::npos);
}

TEST(AnalyzeBadInput, MissingRankIsNamed) {
  TempDir dir;
  writeRun(dir.path());
  fs::remove(rankFile(dir.path(), 2));
  expectOneLineError(runBubblescope({"analyze", dir.path().string()}), dir.path().string(),
                     "missing ranks");
}

TEST(AnalyzeBadInput, TwoRunsMixedInOneDirectory) {
  TempDir dir;
  TempDir other;
  writeRun(dir.path(), "run-a");
  writeRun(other.path(), "run-b");
  fs::rename(rankFile(other.path(), 3), rankFile(dir.path(), 3));
  expectOneLineError(runBubblescope({"analyze", dir.path().string()}), dir.path().string(),
                     "two runs are mixed");
}

TEST(AnalyzeBadInput, CorruptFileIsNamed) {
  TempDir dir;
  writeRun(dir.path());
  const fs::path victim = rankFile(dir.path(), 1);
  std::string bytes = readFile(victim);
  ASSERT_GT(bytes.size(), 4096u);
  std::fill(bytes.begin() + 100, bytes.end(), '\x5a');  // keep the SQLite header, ruin the rest
  writeFile(victim, bytes);
  const auto r = runBubblescope({"analyze", dir.path().string()});
  expectOneLineError(r, victim.filename().string(), "");
}

TEST(AnalyzeBadInput, TruncatedFileIsNamed) {
  TempDir dir;
  writeRun(dir.path());
  const fs::path victim = rankFile(dir.path(), 0);
  fs::resize_file(victim, fs::file_size(victim) / 2);
  expectOneLineError(runBubblescope({"analyze", dir.path().string()}), victim.filename().string(),
                     "");
}

TEST(AnalyzeBadInput, NoPipelineOpsSaysWhatWasTriedAndHowToAnnotate) {
  TempDir dir;
  writeRun(dir.path(), "synthetic", "zz_");
  const auto r = runBubblescope({"analyze", dir.path().string()});
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_NE(r.err.find(dir.path().string()), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("no pipeline ops"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("bubblescope"), std::string::npos) << r.err;  // a rule set tried
}

// A pipeline's own refusal named the pipeline and not what the user handed: "pipeline 0: no step
// could be re-run by the simulator (...)". The file is an NDTimeline timeline whose second stage
// stops in its first step (a fuzz seed: its metadata comes last).
TEST(AnalyzeBadInput, APipelineThatNoStepReplaysNamesTheFile) {
  const fs::path file = fs::path(BUBBLESCOPE_SOURCE_DIR) /
                        "tests/traces/import/fuzz/corpus/ndtimeline_metadata_last.json";
  const auto r = runBubblescope({"analyze", file.string()});
  expectOneLineError(r, file.string() + ": pipeline 0: ", "no step could be re-run");
  // Named once, not again by each layer it passed through.
  EXPECT_EQ(r.err.find(file.string()), r.err.rfind(file.string())) << r.err;
}

TEST(AnalyzeBadInput, DirectoryWithoutTraces) {
  TempDir dir;
  writeFile(dir / "notes.txt", "hello\n");
  expectOneLineError(runBubblescope({"analyze", dir.path().string()}), dir.path().string(),
                     "no traces here");
}

TEST(AnalyzeBadInput, PathThatDoesNotExist) {
  TempDir dir;
  const std::string missing = (dir / "nowhere").string();
  const auto r = runBubblescope({"analyze", missing});
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_NE(r.err.find(missing), std::string::npos) << r.err;
}

}  // namespace
}  // namespace bubblescope::testing
