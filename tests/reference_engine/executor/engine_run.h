#pragma once
// Runs `bubblescope engine run` as a user would and reads the truth it wrote; helpers to query it.
#include <chrono>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"

namespace bubblescope::engine::test {

using nlohmann::json;

struct EngineRun {
  testing::ProcessResult process;
  json truth;  // null when no truth was written
  double seconds = 0;
};

// Adds --truth DIR/truth.json, -q and a 60 s --timeout unless the arguments set them. `env` is
// added to the engine's environment.
EngineRun runEngine(const testing::TempDir& dir, std::vector<std::string> args,
                    const std::map<std::string, std::string>& env = {});

// The ops of one stage in one step, in the order they ran.
std::vector<json> opsOf(const json& stage, int step);
// The op (kind, mb, chunk) of one step on one stage; null if absent.
json findOp(const json& stage, int step, const std::string& kind, int mb, int chunk = 0);
double durationMs(const json& interval);
double median(std::vector<double> values);
// The q-quantile (0..1). Low quantiles of op durations resist a loaded machine: a sleep can end
// late, never early.
double quantile(std::vector<double> values, double q);
std::vector<double> opDurationsMs(const json& stage, const std::string& kind);
// How many NVTX ranges of the stage have exactly this name.
int rangeCount(const json& stage, const std::string& name);
// Live processes whose command line contains `marker` (the engine's stages carry its paths).
std::vector<int> processesMentioning(const std::string& marker);

}  // namespace bubblescope::engine::test
