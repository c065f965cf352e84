#include "reference_engine/executor/engine.h"

#include <stdlib.h>

#include <fstream>
#include <system_error>

#include <nlohmann/json.hpp>

#include "reference_engine/executor/clock.h"
#include "reference_engine/executor/config_json.h"
#include "reference_engine/executor/launcher.h"
#include "reference_engine/executor/stage_plan.h"
#include "reference_engine/executor/truth.h"
#include "traces/files/output_file.h"

namespace bubblescope::engine {
namespace {

// The stages' working files (configuration, truth parts), next to the truth so that they are on
// a file system the user chose; removed when the run ends, whatever happened.
class PartsDir {
 public:
  explicit PartsDir(const std::filesystem::path& truth) {
    // Refused before the run, not after it: a device, FIFO or directory is never replaced.
    traces::checkOutputPath(truth);
    std::filesystem::path dir = truth.parent_path();
    if (dir.empty()) dir = ".";
    std::error_code ec;
    if (std::filesystem::is_directory(truth, ec)) {
      throw std::invalid_argument("cannot write " + truth.string() + ": it is a directory");
    }
    if (!std::filesystem::is_directory(dir, ec)) {
      throw std::invalid_argument("cannot write " + truth.string() + ": " + dir.string() +
                                  " is not a directory");
    }
    std::string pattern = (dir / ("." + truth.filename().string() + ".parts-XXXXXX")).string();
    if (!::mkdtemp(pattern.data())) {
      throw std::invalid_argument("cannot write " + truth.string() + ": cannot create a file in " +
                                  dir.string());
    }
    path_ = std::filesystem::absolute(pattern).lexically_normal();
  }
  ~PartsDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  PartsDir(const PartsDir&) = delete;
  PartsDir& operator=(const PartsDir&) = delete;

  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

std::filesystem::path partPath(const PartsDir& dir, int stage) {
  return dir / ("stage-" + std::to_string(stage) + ".json");
}

// The variables a launcher such as torchrun sets, plus, with labels, the pipeline coordinates a
// profiler agent reads to place the rank without inferring it (a run without labels leaves the
// pipeline to be read off its traffic, as a plain torchrun job does).
std::vector<std::string> stageEnvironment(int stage, int p, bool labels) {
  const std::string s = std::to_string(stage), n = std::to_string(p);
  std::vector<std::string> env = {"RANK=" + s, "LOCAL_RANK=" + s, "WORLD_SIZE=" + n,
                                  "LOCAL_WORLD_SIZE=" + n, "GROUP_RANK=0"};
  if (labels) {
    for (std::string v :
         {"BUBBLESCOPE_PP_SIZE=" + n, "BUBBLESCOPE_PP_RANK=" + s,
          std::string("BUBBLESCOPE_DP_SIZE=1"), std::string("BUBBLESCOPE_DP_RANK=0")})
      env.push_back(std::move(v));
  }
  return env;
}

}  // namespace

EngineOutcome runEngine(const EngineConfig& config) {
  validate(config);
  const int p = config.schedule.p;
  PartsDir parts(config.truthPath);
  const std::filesystem::path configPath = parts / "config.json";
  traces::writeOutputFile(configPath,
                          [&](std::ostream& out) { writeEngineConfigJson(config, out); });

  StageLaunch launch;
  launch.stages = p;
  launch.channelPairs = channelPairs(config.schedule);
  launch.timeoutSeconds = config.timeoutSeconds;
  launch.argv = [&](int stage, const std::vector<std::pair<int, int>>& channels) {
    std::vector<std::string> argv = config.workerCommand;
    for (const std::string& a :
         {std::string("--stage"), std::to_string(stage), std::string("--config"),
          configPath.string(), std::string("--part"), partPath(parts, stage).string()}) {
      argv.push_back(a);
    }
    for (auto [peer, fd] : channels) {
      argv.push_back("--channel");
      argv.push_back(std::to_string(peer) + ":" + std::to_string(fd));
    }
    return argv;
  };
  launch.environment = [p, &config](int stage) {
    return stageEnvironment(stage, p, config.labels);
  };

  EngineOutcome outcome;
  const int64_t start = realtimeNs();
  const LaunchOutcome launched = launchStages(launch);
  const int64_t end = realtimeNs();
  // Through a temporary file and a rename, so a reader never sees half a truth.
  const auto writeTruth = [&](const std::vector<StageRecord>& stages, const std::string& how) {
    traces::writeOutputFile(config.truthPath, [&](std::ostream& out) {
      writeTruthJson(config, stages, start, end, how, out);
    });
  };
  if (!launched.ok) {
    outcome.failure = launched.failure;
    // A run meant to hang still leaves its answer key: the faults and how it ended (the stages,
    // stopped by the watchdog, left no parts).
    if (config.faults.deadlocks()) writeTruth({}, launched.failure);
    return outcome;
  }
  // Each part read and let go in turn: the records are a fraction of a parsed document's size.
  for (int s = 0; s < p; ++s) {
    std::ifstream in(partPath(parts, s));
    if (!in) throw std::runtime_error("stage " + std::to_string(s) + " left no truth part");
    outcome.stages.push_back(stageRecordFromJson(nlohmann::json::parse(in)));
  }
  writeTruth(outcome.stages, "finished");
  outcome.ok = true;
  return outcome;
}

}  // namespace bubblescope::engine
