// `bubblescope engine run`: the reference engine (reference_engine/executor), and the hidden
// `engine worker` each of its stage processes runs.
#include <unistd.h>

#include <charconv>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>

#include "cli/command.h"
#include "cli/exit_codes.h"
#include "reference_engine/executor/engine.h"
#include "reference_engine/executor/summary.h"
#include "reference_engine/executor/worker.h"

namespace bubblescope::cli {
namespace {

struct RunOptions {
  std::string schedule;
  int p = 0;
  int m = 0;
  int v = 2;
  int steps = 3;
  std::string compute = "sleep";
  std::string opMs;
  double optimizerMs = 1.0;
  uint64_t payloadBytes = 65536;
  uint64_t seed = 1;
  std::string truth = "truth.json";
  double timeout = 600;
  engine::FaultFlags faults;
  int mlpWidth = 128;
  int mlpBatch = 32;
  double mlpLr = 4.0;
  bool quiet = false;
  CLI::Option* vOption = nullptr;
};

struct WorkerOptions {
  int stage = 0;
  std::string config;
  std::string part;
  std::vector<std::string> channels;
};

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

int runEngineCommand(const RunOptions& o) {
  engine::EngineConfig config;
  config.compute = engine::parseComputeMode(o.compute);
  if (const std::string why = engine::computeModeUnavailable(config.compute); !why.empty()) {
    throw UsageError(why);
  }
  config.scheduleName = o.schedule;
  config.schedule = engine::Schedule::byName(o.schedule, o.p, o.m, o.v);
  if (o.vOption->count() > 0 && config.schedule.v != o.v) {
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
  if (!o.quiet) std::cout << engine::formatSummary(outcome.truth, config.truthPath.string());
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

void addRun(CLI::App& engineCmd, Action& action) {
  auto o = std::make_shared<RunOptions>();
  auto* run = engineCmd.add_subcommand(
      "run", "Run a pipeline schedule as one process per stage, annotated with NVTX");
  run->add_option("--schedule", o->schedule, "gpipe, 1f1b, interleaved, zb-h1, zb-h2, zb-v")
      ->required();
  run->add_option("-p,--stages", o->p, "Pipeline stages (processes)")->required();
  run->add_option("-m,--microbatches", o->m, "Microbatches per step")->required();
  o->vOption =
      run->add_option("--v", o->v, "Model chunks per stage (interleaved)")->capture_default_str();
  run->add_option("--steps", o->steps, "Training steps")->capture_default_str();
  run->add_option("--compute", o->compute, "sleep, mlp or cuda")->capture_default_str();
  run->add_option("--op-ms", o->opMs, "Op costs in ms for sleep mode: F,B,W (BW = B+W) [2,2,2]");
  run->add_option("--optimizer-ms", o->optimizerMs, "Optimizer cost in ms (sleep mode)")
      ->capture_default_str();
  run->add_option("--payload-bytes", o->payloadBytes,
                  "Bytes of each activation and gradient (sleep mode)")
      ->capture_default_str();
  run->add_option("--seed", o->seed, "Seed of jitter, weights and data")->capture_default_str();
  run->add_option("--truth", o->truth, "Where truth.json goes")->capture_default_str();
  run->add_option("--timeout", o->timeout, "Stop a run that takes longer (seconds)")
      ->capture_default_str();
  run->add_option("--slow-stage", o->faults.slowStage, "S:FACTOR  stage S's ops take FACTOR×");
  run->add_option("--stall", o->faults.stall,
                  "S:MB:MS[:STEP]  stage S idles MS ms before its first op of MB");
  run->add_option("--host-stall", o->faults.hostStall,
                  "S:MB:MS[:STEP]  same place, host busy in a `dataloader` range");
  run->add_option("--comm-delay", o->faults.commDelay,
                  "S:MS  every activation/gradient stage S sends is held MS ms");
  run->add_option("--jitter", o->faults.jitterPct, "PCT  each op cost × (1+u), |u| ≤ PCT%");
  run->add_option("--crash", o->faults.crash, "S:MB[:STEP]  stage S aborts before MB (tests)");
  run->add_option("--mlp-width", o->mlpWidth, "mlp mode: layer width")->capture_default_str();
  run->add_option("--mlp-batch", o->mlpBatch, "mlp mode: samples per microbatch")
      ->capture_default_str();
  run->add_option("--mlp-lr", o->mlpLr, "mlp mode: SGD learning rate")->capture_default_str();
  run->add_flag("-q,--quiet", o->quiet, "Print nothing on success");
  // Fault flags repeat (--stall 1:5:20 --stall 2:0:5), one value each.
  for (const char* name : {"--slow-stage", "--stall", "--host-stall", "--comm-delay", "--crash"}) {
    run->get_option(name)->expected(1)->allow_extra_args(false)->multi_option_policy(
        CLI::MultiOptionPolicy::TakeAll);
  }
  run->callback([o, &action] { action = [o] { return runEngineCommand(*o); }; });
}

void addWorker(CLI::App& engineCmd, Action& action) {
  auto o = std::make_shared<WorkerOptions>();
  auto* worker = engineCmd.add_subcommand("worker", "One stage process (started by engine run)");
  worker->group("");  // hidden: only the launcher starts it
  worker->add_option("--stage", o->stage)->required();
  worker->add_option("--config", o->config)->required();
  worker->add_option("--part", o->part)->required();
  worker->add_option("--channel", o->channels);
  worker->callback([o, &action] { action = [o] { return runWorkerCommand(*o); }; });
}

}  // namespace

void addEngineCommand(CLI::App& app, Action& action) {
  auto* sub = app.add_subcommand("engine", "The reference pipeline engine: engine run --help");
  sub->require_subcommand(1);
  addRun(*sub, action);
  addWorker(*sub, action);
}

}  // namespace bubblescope::cli
