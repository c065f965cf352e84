// What an NVTX profiler receives from the engine is exactly what truth.json lists: the same
// ranges (names, threads, times within a few µs) and the same thread names. Uses a minimal NVTX
// tool (nvtx_recorder.cpp) loaded the way every NVTX profiler is, through NVTX_INJECTION64_PATH.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <sstream>
#include <tuple>

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
    for (const json& r : stage["nvtx"]) {
      auto [first, last] =
          c.ranges.equal_range({r["name"].get<std::string>(), r["tid"].get<int>()});
      bool found = false;
      for (auto it = first; it != last && !found; ++it) {
        // The tool stamps inside push/pop; the engine just after push and just before pop. On
        // a loaded machine a thread can be preempted between the two stamps for milliseconds:
        // the bound is generous but still below a step, so a range cannot match its twin of
        // another step.
        const int64_t ds = r["start_ns"].get<int64_t>() - it->second.first;
        const int64_t de = it->second.second - r["end_ns"].get<int64_t>();
        constexpr int64_t kPreemption = 5'000'000;
        found = ds >= 0 && ds < kPreemption && de >= 0 && de < kPreemption;
      }
      EXPECT_TRUE(found) << "stage " << stage["stage"] << ": " << r.dump();
    }
    for (const json& t : stage["threads"]) EXPECT_EQ(c.threads[t["tid"].get<int>()], t["name"]);
  }
}

}  // namespace
}  // namespace bubblescope::engine
