#include "reference_engine/executor/worker.h"

#include <sys/prctl.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <thread>

#include "reference_engine/executor/config_json.h"
#if BUBBLESCOPE_HAVE_CUDA_COMPUTE
#include "reference_engine/executor/cuda_compute.h"
#endif
#include "reference_engine/executor/mlp_compute.h"
#include "reference_engine/executor/sleep_compute.h"
#include "reference_engine/executor/stage_runner.h"
#include "traces/files/output_file.h"

namespace bubblescope::engine {
namespace {

EngineConfig loadConfig(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read the run configuration " + path.string());
  return engineConfigFromJson(nlohmann::json::parse(in));
}

std::unique_ptr<Compute> makeCompute(const EngineConfig& config, int stage) {
  switch (config.compute) {
    case ComputeMode::Sleep:
      return std::make_unique<SleepCompute>(config.payloadBytes,
                                            CostModel(config.costs, {}, 0).optimizerNs());
    case ComputeMode::Mlp:
      return std::make_unique<MlpCompute>(config.schedule, stage, config.mlp, config.seed);
    case ComputeMode::Cuda:
#if BUBBLESCOPE_HAVE_CUDA_COMPUTE
      return std::make_unique<CudaCompute>(config.schedule, stage, config.mlp, config.seed);
#else
      break;
#endif
  }
  throw std::runtime_error(std::string("compute mode ") + computeModeName(config.compute) +
                           " is not built in");
}

void writePart(const std::filesystem::path& path, const StageRecord& record) {
  traces::writeOutputFile(path, [&](std::ostream& out) {
    traces::JsonWriter json(out);
    writeStageRecordJson(record, json);
  });
}

int runStage(const WorkerArgs& args) {
  const EngineConfig config = loadConfig(args.config);
  const int stage = args.stage;
  if (stage < 0 || stage >= config.schedule.p) throw std::runtime_error("stage out of range");
  // Before any call a profiler sees: the rank is not there yet (--late-start).
  if (const double late = config.faults.lateStartSeconds(stage); late > 0) {
    std::this_thread::sleep_for(std::chrono::duration<double>(late));
  }

  Annotator annotator(config.labels);
  const NcclRanges nccl(!config.labels);
  annotator.nameThisThread("stage " + std::to_string(stage));
  StageRecord record;
  record.stage = stage;
  record.pid = static_cast<int>(getpid());
  for (const char* name :
       {"RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "BUBBLESCOPE_PP_SIZE",
        "BUBBLESCOPE_PP_RANK", "BUBBLESCOPE_DP_SIZE", "BUBBLESCOPE_DP_RANK"}) {
    if (const char* value = std::getenv(name)) record.environment.emplace_back(name, value);
  }
  auto compute = makeCompute(config, stage);
  Mailbox mailbox;
  {
    std::map<int, std::unique_ptr<Channel>> channels;
    for (auto [peer, fd] : args.channels) {
      channels[peer] = std::make_unique<Channel>(stage, peer, fd, mailbox, annotator);
    }
    StageRunner(config, stage, mailbox, channels, annotator, *compute, record, nccl).run();
    for (auto& [peer, channel] : channels) {
      channel->finish();
      auto sent = channel->sends();
      record.sends.insert(record.sends.end(), sent.begin(), sent.end());
    }
  }
  record.ranges = annotator.ranges();
  record.threads = annotator.threads();
  writePart(args.part, record);
  return 0;
}

}  // namespace

int runWorker(const WorkerArgs& args) {
  // Sleeps end within a microsecond of their deadline instead of the default 50 µs slack.
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  try {
    return runStage(args);
  } catch (const PeerLost&) {
    // Not this stage's fault: the launcher reports the stage that ended first.
    return kStageLostPeerExit;
  } catch (const std::exception& e) {
    std::cerr << "bubblescope: engine: stage " << args.stage << ": " << e.what() << "\n";
    return kStageFailedExit;
  }
}

}  // namespace bubblescope::engine
