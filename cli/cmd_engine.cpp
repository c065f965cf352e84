// `bubblescope engine run`: the reference engine (reference_engine/executor), and the hidden
// `engine worker` each of its stage processes runs.
#include <unistd.h>

#include <charconv>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>

#include "cli/cmd_engine.h"
#include "cli/exit_codes.h"
#include "cli/usage_error.h"
#include "reference_engine/executor/engine.h"
#include "reference_engine/executor/summary.h"
#include "reference_engine/executor/worker.h"

namespace bubblescope::cli {
namespace {

// This program, so stages re-execute it (and an LD_PRELOADed agent starts in each).
std::string selfPath() {
  std::string buf(4096, '\0');
  ssize_t n = ::readlink("/proc/self/exe", buf.data(), buf.size());
  if (n <= 0) return "/proc/self/exe";
  buf.resize(static_cast<size_t>(n));
  return buf;
}

// The command line as typed, for truth.json.
std::vector<std::string> commandLine() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> args;
  size_t begin = 0;
  while (begin < all.size()) {
    size_t end = all.find('\0', begin);
    if (end == std::string::npos) end = all.size();
    args.push_back(all.substr(begin, end - begin));
    begin = end + 1;
  }
  return args;
}

}  // namespace

int runEngineCommand(const RunOptions& o) {
  engine::EngineConfig config;
  config.compute = engine::parseComputeMode(o.compute);
  if (const std::string why = engine::computeModeUnavailable(config.compute); !why.empty()) {
    throw UsageError(why);
  }
  config.scheduleName = o.schedule;
  config.schedule = engine::Schedule::byName(o.schedule, o.p, o.m, o.v);
  if (o.vGiven && config.schedule.v != o.v) {
    throw UsageError("--v " + std::to_string(o.v) + " does not apply to " + o.schedule +
                     " (it runs " + std::to_string(config.schedule.v) + " chunk(s) per stage)");
  }
  if (o.steps < 1) throw UsageError("--steps must be at least 1");
  config.steps = o.steps;
  config.costs.optimizerMs = o.optimizerMs;
  if (!(o.optimizerMs >= 0)) throw UsageError("--optimizer-ms must be 0 or more");
  if (!o.opMs.empty()) config.costs = engine::parseOpMs(o.opMs, config.costs);
  config.payloadBytes = o.payloadBytes;
  config.seed = o.seed;
  config.labels = !o.noLabels;
  config.faults = engine::parseFaults(o.faults, {o.p, o.m, o.steps});
  config.mlp.width = o.mlpWidth;
  config.mlp.batch = o.mlpBatch;
  config.mlp.lr = o.mlpLr;
  config.truthPath = o.truth;
  config.timeoutSeconds = o.timeout;
  config.workerCommand = {selfPath(), "engine", "worker"};
  config.commandLine = commandLine();

  const engine::EngineOutcome outcome = engine::runEngine(config);
  if (!outcome.ok) {
    std::cerr << "bubblescope: engine: " << outcome.failure << "\n";
    return kInternalError;
  }
  if (!o.quiet) {
    std::cout << engine::formatSummary(config, outcome.stages, config.truthPath.string());
  }
  return kOk;
}

int runWorkerCommand(const WorkerOptions& o) {
  engine::WorkerArgs args;
  args.stage = o.stage;
  args.config = o.config;
  args.part = o.part;
  for (const std::string& c : o.channels) {
    const size_t colon = c.find(':');
    int peer = -1, fd = -1;
    if (colon == std::string::npos ||
        std::from_chars(c.data(), c.data() + colon, peer).ec != std::errc() ||
        std::from_chars(c.data() + colon + 1, c.data() + c.size(), fd).ec != std::errc()) {
      throw UsageError("--channel '" + c + "': expected PEER:FD");
    }
    args.channels.push_back({peer, fd});
  }
  return engine::runWorker(args);
}

}  // namespace bubblescope::cli
