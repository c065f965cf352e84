// What an NVTX profiler receives from the engine is exactly what truth.json lists: the same
// ranges (names, threads, each inside the range the tool saw, in the same order) and the same
// thread names. Uses a minimal NVTX tool (nvtx_recorder.cpp) loaded the way every NVTX profiler is,
// through NVTX_INJECTION64_PATH.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>
#include <tuple>
#include <vector>

#include "tests/reference_engine/executor/engine_run.h"

namespace bubblescope::engine {
namespace {

using test::json;

struct Captured {
  std::multimap<std::pair<std::string, int>, std::pair<int64_t, int64_t>> ranges;  // (name, tid)
  std::map<int, std::string> threads;
};

Captured readCapture(const std::filesystem::path& file) {
  Captured c;
  std::istringstream in(testing::readFile(file));
  for (std::string line; std::getline(in, line);) {
    std::istringstream f(line);
    std::string kind, field;
    std::getline(f, kind, '\t');
    std::getline(f, field, '\t');
    const int tid = std::stoi(field);
    if (kind == "thread") {
      std::getline(f, c.threads[tid]);
      continue;
    }
    std::string start, end, name;
    std::getline(f, start, '\t');
    std::getline(f, end, '\t');
    std::getline(f, name);
    c.ranges.insert({{name, tid}, {std::stoll(start), std::stoll(end)}});
  }
  return c;
}

TEST(NvtxCapture, ProfilerReceivesExactlyTheRangesInTruth) {
  testing::TempDir dir, capture;
  auto run = test::runEngine(dir,
                             {"--schedule", "zb-v", "-p", "4", "-m", "8", "--steps", "2", "--op-ms",
                              "0.3", "--host-stall", "1:2:2"},
                             {{"NVTX_INJECTION64_PATH", NVTX_RECORDER},
                              {"BUBBLESCOPE_TEST_NVTX_DIR", capture.path().string()}});
  ASSERT_EQ(run.process.exitCode, 0) << run.process.err;
  ASSERT_TRUE(run.truth["nvtx_compiled_in"].get<bool>());
  for (const json& stage : run.truth["stages"]) {
    const auto file = capture / (std::to_string(stage["pid"].get<int>()) + ".tsv");
    ASSERT_TRUE(std::filesystem::exists(file)) << "no capture for stage " << stage["stage"];
    Captured c = readCapture(file);
    EXPECT_EQ(c.ranges.size(), stage["nvtx"].size()) << "stage " << stage["stage"];
    // The k-th range of one name on one thread in truth.json is the k-th the tool saw: ranges of
    // one name on one thread never overlap, so order pairs them, whatever the machine's load. The
    // tool stamps inside push/pop and the engine just after push and just before pop, so each
    // captured range holds its truth range. No bound on the gap: a loaded machine can preempt a
    // thread between the two stamps for as long as it likes, and order already rules out a twin.
    std::map<std::pair<std::string, int>, std::vector<std::pair<int64_t, int64_t>>> truth;
    for (const json& r : stage["nvtx"]) {
      truth[{r["name"].get<std::string>(), r["tid"].get<int>()}].push_back(
          {r["start_ns"].get<int64_t>(), r["end_ns"].get<int64_t>()});
    }
    for (auto& [key, spans] : truth) {
      std::sort(spans.begin(), spans.end());
      auto [first, last] = c.ranges.equal_range(key);
      std::vector<std::pair<int64_t, int64_t>> seen;
      for (auto it = first; it != last; ++it) seen.push_back(it->second);
      std::sort(seen.begin(), seen.end());
      const std::string what = "stage " + stage["stage"].dump() + ", '" + key.first + "' on " +
                               std::to_string(key.second);
      ASSERT_EQ(seen.size(), spans.size()) << what;
      for (size_t k = 0; k < spans.size(); ++k) {
        EXPECT_LE(seen[k].first, spans[k].first) << what << ", range " << k;
        EXPECT_GE(seen[k].second, spans[k].second) << what << ", range " << k;
        if (k + 1 < spans.size()) {
          EXPECT_LT(seen[k].second, spans[k + 1].first) << what;
        }
      }
    }
    for (const json& t : stage["threads"]) EXPECT_EQ(c.threads[t["tid"].get<int>()], t["name"]);
  }
}

}  // namespace
}  // namespace bubblescope::engine
