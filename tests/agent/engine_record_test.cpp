// The reference engine under `bubblescope record`: one trace per stage, holding exactly the NVTX
// ranges the engine says it emitted (truth.json): same names and counts per stage, same threads,
// times within microseconds.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <vector>

#include "tests/agent/agent_test_support.h"
#include "tests/support/temp_dir.h"
#include "traces/sqlite/run_reader.h"
#include "traces/sqlite/trace_reader.h"

namespace bubblescope::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string rankFile(int rank) {
  char name[32];
  std::snprintf(name, sizeof name, "rank-%05d.sqlite", rank);
  return name;
}

struct Range {
  int64_t start, end;
  bool matched = false;
};

TEST(AgentEngine, RecordedEngineHoldsExactlyTheRangesInTruthPerStage) {
  TempDir tmp;
  const fs::path run = tmp / "run";
  const fs::path truthFile = tmp / "truth.json";
  ProcessOptions o = cleanEnv();
  o.timeout = std::chrono::seconds(60);
  const auto r = runBubblescope({"record",
                                 "-o",
                                 run.string(),
                                 "--",
                                 BUBBLESCOPE_BIN,
                                 "engine",
                                 "run",
                                 "--schedule",
                                 "1f1b",
                                 "-p",
                                 "4",
                                 "-m",
                                 "8",
                                 "--compute",
                                 "sleep",
                                 "--op-ms",
                                 "0.5",
                                 "--optimizer-ms",
                                 "0.5",
                                 "--steps",
                                 "2",
                                 "--truth",
                                 truthFile.string(),
                                 "-q"},
                                o);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const json truth = json::parse(readFile(truthFile));
  ASSERT_TRUE(truth["nvtx_compiled_in"].get<bool>());

  // Exactly one file per stage (the launcher emits nothing, so it leaves none).
  const auto files = traceFiles(run);
  ASSERT_EQ(files.size(), 4u) << r.err;
  for (int s = 0; s < 4; ++s) {
    EXPECT_EQ(files[s].filename(), rankFile(s)) << files[s];
  }
  const traces::Run loaded = traces::readRun(run);
  ASSERT_EQ(loaded.ranks.size(), 4u);

  std::vector<int64_t> offsets;  // |truth - trace| of every start and end
  for (const json& stage : truth["stages"]) {
    const int s = stage["stage"].get<int>();
    const fs::path file = run / rankFile(s);
    const traces::RankMeta meta = traces::readRankMeta(file);
    EXPECT_EQ(meta.rank, s);
    EXPECT_EQ(meta.worldSize, 4);
    EXPECT_EQ(meta.pid, stage["pid"].get<int64_t>());
    EXPECT_EQ(meta.extra.at("BUBBLESCOPE_PP_RANK"), std::to_string(s));
    EXPECT_EQ(meta.dropped.at("nvtx"), 0u);

    // (name, tid) → the trace's ranges.
    std::map<std::pair<std::string, std::string>, std::vector<Range>> captured;
    size_t capturedCount = 0;
    for (const auto& row : sqlRows(file,
                                   "SELECT s.value, r.tid, r.start, r.end FROM nvtx_ranges "
                                   "r JOIN strings s ON s.id = r.name_id ORDER BY r.start")) {
      captured[{row[0], row[1]}].push_back({std::stoll(row[2]), std::stoll(row[3])});
      ++capturedCount;
    }
    EXPECT_EQ(capturedCount, stage["nvtx"].size()) << "stage " << s;
    std::map<std::string, int> truthCounts, traceCounts;
    for (const auto& [key, ranges] : captured) traceCounts[key.first] += int(ranges.size());
    for (const json& t : stage["nvtx"]) {
      const std::string name = t["name"].get<std::string>();
      ++truthCounts[name];
      auto it = captured.find({name, std::to_string(t["tid"].get<int>())});
      ASSERT_NE(it, captured.end()) << "stage " << s << ": " << t.dump();
      // The engine stamps just after push and just before pop; the agent inside them.
      const int64_t ts = t["start_ns"].get<int64_t>(), te = t["end_ns"].get<int64_t>();
      Range* best = nullptr;
      for (Range& c : it->second) {
        if (!c.matched &&
            (best == nullptr || std::llabs(c.start - ts) < std::llabs(best->start - ts))) {
          best = &c;
        }
      }
      ASSERT_NE(best, nullptr) << "stage " << s << ": " << t.dump();
      best->matched = true;
      // The agent stamps inside the push and the pop, the engine just outside them: the
      // trace's range contains the truth's (give or take the clock conversion, < 1 µs).
      const int64_t ds = ts - best->start, de = best->end - te;
      EXPECT_GT(ds, -5'000) << "stage " << s << ": " << t.dump();
      EXPECT_GT(de, -5'000) << "stage " << s << ": " << t.dump();
      offsets.push_back(std::llabs(ds));
      offsets.push_back(std::llabs(de));
    }
    EXPECT_EQ(truthCounts, traceCounts) << "stage " << s;
    // Threads that emitted ranges are named as the engine named them.
    for (const json& th : stage["threads"]) {
      const std::string tid = std::to_string(th["tid"].get<int>());
      if (sqlInt(file, "SELECT count(*) FROM nvtx_ranges WHERE tid = " + tid) == 0) continue;
      EXPECT_EQ(sqlText(file,
                        "SELECT s.value FROM threads t JOIN strings s ON s.id = t.name_id "
                        "WHERE t.tid = " +
                            tid),
                th["name"].get<std::string>());
    }
  }
  // Typically a microsecond or two; quantiles resist a loaded machine's preemptions (the
  // engine's clock read can be delayed by a context switch).
  std::sort(offsets.begin(), offsets.end());
  ASSERT_FALSE(offsets.empty());
  EXPECT_LT(offsets[offsets.size() / 2], 20'000) << "median |truth - trace| in ns";
  EXPECT_LT(offsets[offsets.size() * 95 / 100], 200'000) << "95th percentile in ns";
  EXPECT_LT(offsets.back(), 20'000'000) << "largest |truth - trace| in ns";
}

}  // namespace
}  // namespace bubblescope::testing
