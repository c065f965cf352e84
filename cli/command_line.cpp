// The command line of the bubblescope program: every subcommand, its options and their help,
// parsed with CLI11. The only file that includes CLI11: its header costs ~8 s of compile time in
// every file that includes it (docs/benchmarks.md), so the commands (cmd_*.cpp) take plain structs.
#include "cli/command_line.h"

#include <cctype>
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "analyzer/report/report.h"
#include "bubblescope/version.h"
#include "cli/analysis_flags.h"
#include "cli/cmd_analyze.h"
#include "cli/cmd_attach.h"
#include "cli/cmd_check.h"
#include "cli/cmd_demo.h"
#include "cli/cmd_engine.h"
#include "cli/cmd_export.h"
#include "cli/cmd_hang.h"
#include "cli/cmd_import.h"
#include "cli/cmd_ps.h"
#include "cli/cmd_record.h"
#include "cli/cmd_simulate.h"
#include "cli/cmd_view.h"
#include "cli/cmd_watch.h"
#include "cli/exit_codes.h"
#include "cli/number_option.h"
#include "reference_engine/schedule/schedule_table.h"
#include "traces/import/input_formats.h"

namespace bubblescope::cli {
namespace {

// Each add*Command() declares a subcommand and its options; when the user picks it, its parse
// callback stores what to run in `action`, which runs after parsing.
using Action = std::function<int()>;
using traces::import::InputFormat;

// Every numeric option is checked by one rule (cli/number_option.h): CLI11's own checks let nan
// through and name DBL_MAX in 300 digits.
CLI::Validator inRange(const NumberRange& range) {
  return CLI::Validator([range](std::string& value) { return numberProblem(value, range); },
                        rangeHint(range));
}

constexpr double kDayMs = 86'400'000;      // a time in ms beyond a day is a typo
constexpr double kYearS = 366.0 * 86'400;  // a time in seconds beyond a year, too
constexpr int64_t kMaxPid = INT32_MAX;

void addSimulateCommand(CLI::App& app, Action& action) {
  auto args = std::make_shared<SimulateArgs>();
  auto* sub = app.add_subcommand(
      "simulate",
      "simulate a pipeline schedule: timeline, bubbles, peak memory (reference simulator)");
  sub->add_option("--schedule", args->schedule, engine::scheduleKeyList(" or "))->required();
  // Each at most a million: p * m * v * 3 ops is then counted in an int64 before the op limit.
  sub->add_option("-p,--stages", args->p, "pipeline stages")
      ->required()
      ->check(inRange(wholeFrom(1, 1'000'000)));
  sub->add_option("-m,--microbatches", args->m, "microbatches per step")
      ->required()
      ->check(inRange(wholeFrom(1, 1'000'000)));
  auto* v =
      sub->add_option("--v,--chunks", args->v, "model chunks per stage (interleaved; default 2)")
          ->check(inRange(wholeFrom(1, 1'000'000)));
  sub->add_option("--costs", args->costs,
                  "T_F,T_B,T_W[,T_BW] in ms for one microbatch through one stage (default 1,1,1)");
  sub->add_option("--stage-costs", args->stageCosts,
                  "S:T_F,T_B,T_W in ms for stage S (repeatable), e.g. 3:1.5,1.5,1");
  sub->add_option("--transfer", args->transferMs,
                  "latency in ms added to every cross-stage dependency (default 0)")
      ->check(inRange(numberFrom(0, kDayMs)));
  sub->add_option("--memory", args->memory,
                  "M_B[,M_W] in MiB: activations per microbatch and stage, and what W needs "
                  "(default 1024,0)");
  sub->add_option("--format", args->format, "text or json (default text)");
  sub->add_option("--width", args->width, "timeline width in columns (default 120)")
      ->check(inRange(wholeFrom(20, 100'000)));
  sub->callback([&action, args, v] {
    args->vGiven = v->count() > 0;
    action = [args] { return runSimulate(*args); };
  });
}

void addRun(CLI::App& engineCmd, Action& action) {
  auto o = std::make_shared<RunOptions>();
  auto* run = engineCmd.add_subcommand(
      "run", "Run a pipeline schedule as one process per stage, annotated with NVTX");
  run->add_option("--schedule", o->schedule, engine::scheduleKeyList())->required();
  run->add_option("-p,--stages", o->p, "Pipeline stages (processes)")
      ->required()
      ->check(inRange(wholeFrom(1, 256)));
  run->add_option("-m,--microbatches", o->m, "Microbatches per step")
      ->required()
      ->check(inRange(wholeFrom(1, 1'000'000)));
  auto* v = run->add_option("--v", o->v, "Model chunks per stage (interleaved)")
                ->capture_default_str()
                ->check(inRange(wholeFrom(1, 1000)));
  run->add_option("--steps", o->steps, "Training steps")
      ->capture_default_str()
      ->check(inRange(wholeFrom(1, 1'000'000)));
  run->add_option("--compute", o->compute, "sleep, mlp or cuda")->capture_default_str();
  run->add_option("--op-ms", o->opMs, "Op costs in ms for sleep mode: F,B,W (BW = B+W) [2,2,2]");
  run->add_option("--optimizer-ms", o->optimizerMs, "Optimizer cost in ms (sleep mode)")
      ->capture_default_str()
      ->check(inRange(numberFrom(0, kDayMs)));
  run->add_option("--payload-bytes", o->payloadBytes,
                  "Bytes of each activation and gradient (sleep mode)")
      ->capture_default_str()
      ->check(inRange(wholeFrom(0, int64_t{1} << 30)));
  run->add_option("--seed", o->seed, "Seed of jitter, weights and data")
      ->capture_default_str()
      ->check(inRange(wholeFrom(0)));
  run->add_option("--truth", o->truth, "Where truth.json goes")->capture_default_str();
  run->add_option("--timeout", o->timeout, "Stop a run that takes longer (seconds)")
      ->capture_default_str()
      ->check(inRange(numberAbove(0, kYearS)));
  // @FROM[-TO] on the next four: only steps FROM..TO-1 (TO exclusive), or FROM to the end, as
  // numbered by the `step N` ranges: a fault with a known onset and end.
  run->add_option("--slow-stage", o->faults.slowStage,
                  "S:FACTOR[@FROM[-TO]]  stage S's ops take FACTOR× (in steps FROM..TO-1 only; "
                  "TO exclusive, to the end if absent); a stage may repeat with ranges that do "
                  "not overlap");
  run->add_option("--stall", o->faults.stall,
                  "S:MB:MS[:STEP|@FROM[-TO]]  stage S idles MS ms before its first op of MB (every "
                  "step, step STEP, or steps FROM..TO-1)");
  run->add_option("--host-stall", o->faults.hostStall,
                  "S:MB:MS[:STEP|@FROM[-TO]]  same place, host busy in a `dataloader` range");
  run->add_option("--comm-delay", o->faults.commDelay,
                  "S:MS[@FROM[-TO]]  every activation/gradient stage S sends is held MS ms (in "
                  "steps FROM..TO-1 only; TO exclusive); a stage may repeat with ranges that do "
                  "not overlap");
  run->add_option("--jitter", o->faults.jitterPct, "PCT  each op cost × (1+u), |u| ≤ PCT%")
      ->check(inRange(numberFrom(0, 100)));
  run->add_option("--crash", o->faults.crash, "S:MB[:STEP]  stage S aborts before MB (tests)");
  run->add_option("--mismatch", o->faults.mismatch,
                  "S:MB  stage S runs its op on MB late: the stages' orders disagree (deadlock)");
  run->add_option("--hang", o->faults.hang,
                  "S:MB[:STEP]  stage S stops before its first op of MB and never returns");
  run->add_option("--late-start", o->faults.lateStart,
                  "S:SECONDS  stage S's process starts SECONDS late (a node slow to come up)");
  run->add_option("--mlp-width", o->mlpWidth, "mlp mode: layer width")
      ->capture_default_str()
      ->check(inRange(wholeFrom(1, 4096)));
  run->add_option("--mlp-batch", o->mlpBatch, "mlp mode: samples per microbatch")
      ->capture_default_str()
      ->check(inRange(wholeFrom(1, 4096)));
  run->add_option("--mlp-lr", o->mlpLr, "mlp mode: SGD learning rate")
      ->capture_default_str()
      ->check(inRange(numberAbove(0, 1e6)));
  run->add_flag("--no-labels", o->noLabels,
                "None of the engine's own NVTX labels (ops, SEND/RECV, steps, grad_sync, "
                "optimizer): its transfers and all-reduces show only as NCCL's own ranges would "
                "(domain NCCL, ncclSend/ncclRecv/ncclAllReduce with their payloads), so a profiler "
                "must infer the pipeline from the traffic");
  run->add_flag("-q,--quiet", o->quiet, "Print nothing on success");
  // Fault flags repeat (--stall 1:5:20 --stall 2:0:5), one value each.
  for (const char* name : {"--slow-stage", "--stall", "--host-stall", "--comm-delay", "--crash",
                           "--mismatch", "--hang", "--late-start"}) {
    run->get_option(name)->expected(1)->allow_extra_args(false)->multi_option_policy(
        CLI::MultiOptionPolicy::TakeAll);
  }
  run->callback([o, v, &action] {
    o->vGiven = v->count() > 0;
    action = [o] { return runEngineCommand(*o); };
  });
}

void addWorker(CLI::App& engineCmd, Action& action) {
  auto o = std::make_shared<WorkerOptions>();
  auto* worker = engineCmd.add_subcommand("worker", "One stage process (started by engine run)");
  worker->group("");  // hidden: only the launcher starts it
  worker->add_option("--stage", o->stage)->required()->check(inRange(wholeFrom(0, 255)));
  worker->add_option("--config", o->config)->required();
  worker->add_option("--part", o->part)->required();
  worker->add_option("--channel", o->channels);
  worker->callback([o, &action] { action = [o] { return runWorkerCommand(*o); }; });
}

void addEngineCommand(CLI::App& app, Action& action) {
  auto* sub = app.add_subcommand("engine", "The reference pipeline engine: engine run --help");
  sub->require_subcommand(1);
  addRun(*sub, action);
  addWorker(*sub, action);
}

void addDemoCommand(CLI::App& app, Action& action) {
  auto opts = std::make_shared<DemoOptions>();
  auto* sub = app.add_subcommand(
      "demo",
      "Run the reference engine under the capture agent with injected faults, analyze "
      "it and write the reports");
  sub->add_option("-o,--output", opts->output, "Directory for the traces and reports")
      ->capture_default_str();
  sub->add_option("--schedule", opts->schedule, "Schedule the engine runs")->capture_default_str();
  sub->add_option("-p", opts->p, "Stages")->capture_default_str()->check(inRange(wholeFrom(2, 16)));
  sub->add_option("-m", opts->m, "Microbatches per step")
      ->capture_default_str()
      ->check(inRange(wholeFrom(1, 256)));
  sub->add_option("--steps", opts->steps, "Steps")
      ->capture_default_str()
      ->check(inRange(wholeFrom(3, 50)));
  sub->add_flag(
      "--no-faults", [opts](int64_t) { opts->faults = false; },
      "Run the pipeline without injected faults");
  sub->callback([&action, opts] { action = [opts] { return runDemo(*opts); }; });
}

// A help sentence after the condition it applies under ("With --watch: write ..."), if any.
std::string conditioned(const std::string& when, std::string text) {
  if (when.empty()) return text;
  text[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
  return when + ": " + text;
}

// The flags of every command that analyses a run (cli/analysis_flags.h). `when`: the condition
// they apply under, for a command that may not analyse ("When analysing a run"); `steps`: whether
// the command takes --steps.
void addAnalysisFlags(CLI::App* sub, AnalysisFlags& flags, const std::string& when = "",
                      bool steps = true) {
  const auto help = [&when](std::string text) { return conditioned(when, std::move(text)); };
  sub->add_flag("--no-clock-align", flags.noClockAlign,
                help("Take every rank's clock as it is (no skew correction)"));
  if (steps) {
    sub->add_option("--steps", flags.steps,
                    help("Steps to analyse by number: N, A:B, A: or :B, or all (analyze and "
                         "check leave the capture's first step out by default: it warms up)"));
  }
  sub->add_option("--rules", flags.rules,
                  help("A JSON rule set for your framework's labels, tried before the built-in "
                       "ones"))
      ->check(CLI::ExistingFile);
}

// The processes of a job running now (watch, view --attach): --all, --pid and --run-id, their
// help under `when`, --run-id's under `runIdWhen`.
void addRunningJobTargets(CLI::App* sub, TargetArgs& t, const std::string& when,
                          const std::string& runIdWhen) {
  sub->add_flag("--all", t.all,
                conditioned(when, "Every attachable process of this user (one job: see --run-id)"));
  sub->add_option("--pid", t.pids, conditioned(when, "These processes (PID, repeatable)"))
      ->delimiter(',')
      ->check(inRange(wholeFrom(1, kMaxPid)));
  sub->add_option("--run-id", t.runId, conditioned(runIdWhen, "Only the processes of this run"));
}

// What each process keeps in memory for a live watch: by default, a poll and `held` steps.
void addKeepOption(CLI::App* sub, double& seconds, const std::string& when, int held) {
  sub->add_option("--keep", seconds,
                  conditioned(when,
                              "Seconds of records each process keeps in memory (default: a "
                              "poll and " +
                                  std::to_string(held) + " steps, 0.5 to 60 s)"))
      ->check(inRange(numberFrom(0.1, 600)));
}

// What a watch serves its dashboards (watch, record --watch).
void addMetricsOptions(CLI::App* sub, LiveWatchOptions& live, const std::string& when) {
  sub->add_option("--prometheus", live.prometheus,
                  conditioned(when,
                              "Write the newest step's figures to this file in Prometheus' text "
                              "format after every step (for the node exporter's textfile "
                              "collector)"));
  sub->add_option("--listen", live.listen,
                  conditioned(when,
                              "Serve the same metrics on http://ADDR/metrics while watching "
                              "(PORT or HOST:PORT)"));
}

void addRecordCommand(CLI::App& app, Action& action) {
  auto* sub = app.add_subcommand("record",
                                 "Run a command with the capture agent in every process it starts");
  auto args = std::make_shared<RecordArgs>();
  sub->add_option("-o,--output", args->output,
                  "Directory for the per-rank traces (default: bubblescope-run-<timestamp>)");
  sub->add_flag("--dormant", args->dormant,
                "Install the hooks but record nothing until capture is started");
  sub->add_flag("--private", args->privateFiles,
                "Traces readable by you only (0600, and DIR 0700 if record creates it); without "
                "it they follow the umask, so a shared run directory can be analysed by others");
  sub->add_option("--cuda", args->cuda, "CUDA kernel capture: on (default) or off")
      ->check(CLI::IsMember({"on", "off"}));
  sub->add_option("--hang-timeout", args->hangTimeout,
                  "SEC: when no rank has finished an op for SEC seconds, write the hang report "
                  "(hang.txt, hang.json) beside the traces, once; the job is left alone")
      ->check(inRange(numberAbove(0, kYearS)));
  sub->add_flag("--watch", args->watch,
                "While the job runs, print watch's line per step on stdout (its time, bubble, S "
                "and culprit; record's own messages stay on stderr), for its processes as they "
                "appear; it ends with the job");
  addMetricsOptions(sub, args->live, "With --watch");
  addKeepOption(sub, args->live.keepSeconds, "With --watch", 3);
  addAnalysisFlags(sub, args->live.analysis, "With --watch", false);
  sub->add_option("command", args->command, "The command to run, after --");
  sub->footer(
      "Example: bubblescope record -o run -- torchrun --nproc-per-node 4 train.py\n"
      "         bubblescope record --watch -o run -- torchrun --nproc-per-node 4 train.py");
  sub->callback([sub, args, &action] {
    bool sawSeparator = false;
    for (const auto& extra : sub->remaining()) sawSeparator = sawSeparator || extra == "--";
    action = [args, sawSeparator] { return runRecord(*args, sawSeparator); };
  });
}

void addTargetOptions(CLI::App* sub, TargetArgs& t) {
  sub->add_option("pid", t.pids, "Process ids (see 'bubblescope ps')")
      ->check(inRange(wholeFrom(1, kMaxPid)));
  sub->add_flag("--all", t.all, "Every attachable process of this user");
  sub->add_option("--run-id", t.runId, "Only processes of this run (BUBBLESCOPE_RUN_ID)");
}

void addAttachCommands(CLI::App& app, Action& action) {
  auto* attach = app.add_subcommand(
      "attach", "Start capture in running processes (started with 'bubblescope record --dormant')");
  auto a = std::make_shared<AttachArgs>();
  addTargetOptions(attach, a->targets);
  attach->add_option("--steps", a->steps, "Capture N steps, the same steps on every rank")
      ->check(inRange(wholeFrom(1, 1'000'000)));
  attach
      ->add_option("--duration", a->duration,
                   "Capture this many seconds, from the same step on every rank")
      ->check(inRange(numberAbove(0, kYearS)));
  attach->add_flag("--wait", a->wait,
                   "Wait until every window closed, then say where the files are");
  attach->footer("Example: bubblescope attach --all --steps 2 --wait");
  attach->callback([a, &action] { action = [a] { return runAttach(*a); }; });

  auto* detach = app.add_subcommand("detach", "Stop capture started by 'bubblescope attach'");
  auto d = std::make_shared<TargetArgs>();
  addTargetOptions(detach, *d);
  detach->callback([d, &action] { action = [d] { return runDetach(*d); }; });
}

void addPsCommand(CLI::App& app, Action& action) {
  auto* ps = app.add_subcommand("ps", "List the processes of this user that 'attach' can reach");
  auto p = std::make_shared<PsArgs>();
  ps->add_option("--run-id", p->runId, "Only processes of this run");
  ps->add_flag("--json", p->json, "One JSON array, an object per process");
  ps->callback([p, &action] { action = [p] { return runPs(*p); }; });
}

void addAnalyzeCommand(CLI::App& app, Action& action) {
  auto opts = std::make_shared<AnalyzeOptions>();
  auto* sub = app.add_subcommand(
      "analyze",
      "Analyze a recorded run: where each stage's time went, which bubble each idle "
      "interval is, what caused it, and what a schedule change would buy");
  sub->add_option("run", opts->paths, "Run directory (one trace per rank), or trace files")
      ->required();
  sub->add_option("--format", opts->format, analysis::reportFormatChoices());
  sub->add_option("-o,--output", opts->output,
                  "Write the report here (format from the extension unless --format)");
  sub->add_flag("--detail", opts->detail,
                "Every record too: in JSON each op, transfer, comm wait and gap (and the "
                "indexes into them); in text a line per gap; every pipeline whole. Without it "
                "the report is a summary whose size follows the job's shape, not its length, "
                "and a job of more than 16 DP replicas lists 16 whole (the culprit's, those the "
                "DP sync waited on, the largest S_d) and the others a line each");
  sub->add_flag("--local", opts->local,
                "Under mpirun or srun: each process reads the traces its node holds (node-local "
                "disks); without it every process sees the whole run (a shared file system)");
  addAnalysisFlags(sub, opts->analysis);
  sub->callback([&action, opts] { action = [opts] { return runAnalyze(*opts); }; });
}

void addCheckCommand(CLI::App& app, Action& action) {
  auto opts = std::make_shared<CheckOptions>();
  auto* sub = app.add_subcommand(
      "check",
      "Regression gate: compare a run (or its JSON report) with a baseline run or JSON report; "
      "exit 1 if the bubble share, S or the step time grew beyond the thresholds");
  sub->add_option("--baseline", opts->baseline,
                  "The baseline: a JSON report ('bubblescope analyze RUN --format json'), or a "
                  "run directory or trace file (analysed now, as analyze would)")
      ->required();
  sub->add_option("current", opts->current,
                  "The run to check: a run directory or trace file (bubblescope, Kineto JSON, "
                  "NDTimeline, Nsight Systems export; analysed now, as analyze would), or its "
                  "JSON report")
      ->required();
  sub->add_option("--max-bubble-pp", opts->thresholds.bubblePp,
                  "Largest allowed rise of the bubble share (idle / span), in percentage points")
      ->check(inRange(numberFrom(0, 100)))
      ->capture_default_str();
  sub->add_option("--max-idle-pp", opts->thresholds.bubblePp,
                  "For a job with no pipeline (utilization): largest allowed rise of the idle "
                  "share, in percentage points (the same limit as --max-bubble-pp)")
      ->check(inRange(numberFrom(0, 100)));
  sub->add_option("--max-slowdown", opts->thresholds.slowdown,
                  "Largest allowed rise of the slowdown S (measured / ideal step time)")
      ->check(inRange(numberFrom(0)))
      ->capture_default_str();
  sub->add_option("--max-step-time-pct", opts->thresholds.stepTimePct,
                  "Largest allowed rise of the measured step time, in percent")
      ->check(inRange(numberFrom(0)))
      ->capture_default_str();
  sub->add_option("--junit", opts->junit,
                  "Also write the verdict as JUnit XML (a test case per gated metric) for CI");
  addAnalysisFlags(sub, opts->analysis, "When analysing a run (either side)");
  sub->callback([&action, opts] { action = [opts] { return runCheck(*opts); }; });
}

void addHangCommand(CLI::App& app, Action& action) {
  auto opts = std::make_shared<HangOptions>();
  auto* sub = app.add_subcommand(
      "hang",
      "Debug a run that hung or mismatched: where each rank stopped, who waits for whom, and "
      "why (RUN: after the fact; --all or --pid: a job running now); exit 1 when it finds a hang "
      "or mismatch, 0 when the run ended cleanly");
  sub->add_option("run", opts->runs,
                  "A run directory, trace files of one run, or answers saved by --save on each "
                  "node of a running job");
  sub->add_flag("--all", opts->all,
                "Ask every attachable process of this user (a running or hung job) instead; "
                "started by mpirun or srun with one process per node, every node's (docs/mpi.md)");
  sub->add_option("--pid", opts->pids, "Ask these processes instead (PID, repeatable)")
      ->delimiter(',')
      ->check(inRange(wholeFrom(1, kMaxPid)));
  sub->add_option("--run-id", opts->runId, "With --all or --pid: only processes of this run");
  auto* minWait =
      sub->add_option("--min-wait", opts->minWaitSeconds,
                      "With --all or --pid: a wait counts once it has lasted this many seconds "
                      "(saved answers keep it; given with them, it replaces theirs)")
          ->capture_default_str()
          ->check(inRange(numberFrom(0, kYearS)));
  sub->add_option("--save", opts->save,
                  "With --all or --pid: also save the answers to this file (a job on several "
                  "nodes: save on each, then 'bubblescope hang FILE...'; under MPI, rank 0 saves "
                  "every node's)");
  sub->add_option("--format", opts->format, "text or json")->capture_default_str();
  sub->add_option("-o,--output", opts->output, "Write the report to this file");
  sub->callback([&action, opts, minWait] {
    opts->minWaitGiven = minWait->count() > 0;
    action = [opts] { return runHang(*opts); };
  });
}

void addWatchCommand(CLI::App& app, Action& action) {
  auto opts = std::make_shared<WatchOptions>();
  auto* sub = app.add_subcommand(
      "watch",
      "A line per training step: its time, bubble, S against the ideal schedule and the culprit, "
      "and a line when a culprit starts or ends (--all or --pid: a job running now, no files; "
      "RUN: a recorded run, step by step)");
  sub->add_option("run", opts->runs, "A recorded run directory or trace files of one run");
  addRunningJobTargets(sub, opts->live.targets, "", "With --all or --pid");
  addKeepOption(sub, opts->live.keepSeconds, "With --all or --pid", 3);
  sub->add_option("--count", opts->live.count, "With --all or --pid: stop after this many steps")
      ->check(inRange(wholeFrom(1, INT64_MAX)));
  sub->add_option("--nice", opts->live.nice,
                  "With --all or --pid: how much to lower the watch's own CPU priority, so that "
                  "the job's processes go first on a busy node (0 to 19; default 10; above 0, "
                  "snapshots are parsed and steps analysed in Linux's idle scheduling class while "
                  "the node has CPU to spare)")
      ->check(inRange(wholeFrom(0, 19)));
  addMetricsOptions(sub, opts->live, "");
  addAnalysisFlags(sub, opts->live.analysis);
  sub->callback([&action, opts] { action = [opts] { return runWatch(*opts); }; });
}

// One subcommand per format that input_formats.h gives an import command.
void addImportCommand(CLI::App& app, Action& action) {
  std::string formats;
  for (const traces::import::InputFormatRow& row : traces::import::inputFormats()) {
    if (!row.command) continue;
    formats += (formats.empty() ? "" : ", ") + std::string(row.command->what);
  }
  auto* sub = app.add_subcommand(
      "import", "Convert other recorders' traces (" + formats + ") into a run directory");
  sub->require_subcommand(1);
  for (const traces::import::InputFormatRow& row : traces::import::inputFormats()) {
    if (!row.command) continue;
    auto args = std::make_shared<ImportArgs>();
    auto* cmd = sub->add_subcommand(row.command->key, row.command->help);
    cmd->add_option("inputs", args->inputs, row.command->inputsHelp)->required();
    cmd->add_option("-o,--output", args->output, "The run directory to write (new or empty)")
        ->required();
    cmd->add_option("--threads", args->threads, "Files imported at once (default: one per core)")
        ->check(inRange(wholeFrom(1, 1024)));
    const InputFormat format = row.format;
    cmd->callback(
        [&action, args, format] { action = [args, format] { return runImport(format, *args); }; });
  }
}

void addExportCommand(CLI::App& app, Action& action) {
  auto* sub = app.add_subcommand("export", "Write a run's analysis in another tool's format");
  sub->require_subcommand(1);
  auto args = std::make_shared<ExportArgs>();
  auto* perfetto = sub->add_subcommand(
      "perfetto",
      "Chrome-trace JSON for the Perfetto UI: stages as processes, ops, idle gaps named by "
      "class with their blame, transfers as arrows");
  perfetto
      ->add_option("run", args->paths, "Run directory or trace files (any format analyze reads)")
      ->required();
  perfetto->add_option("-o,--output", args->output, "The JSON file to write")->required();
  perfetto->add_flag("--with-kernels", args->withKernels,
                     "Also each rank's GPU kernels (a track per stream) and NCCL calls, beside "
                     "its stage's lanes");
  addAnalysisFlags(perfetto, args->analysis, "", false);
  perfetto->callback([&action, args] { action = [args] { return runExportPerfetto(*args); }; });
}

void addViewCommand(CLI::App& app, Action& action) {
  auto opts = std::make_shared<ViewOptions>();
  auto* sub = app.add_subcommand(
      "view",
      "Open a run on the desktop timeline viewer: stages, ops, idle gaps by class, the ideal "
      "schedule, transfers, GPU streams; or render one frame with --screenshot. --attach: a job "
      "running now, its newest steps shown as they finish");
  sub->add_option("run", opts->run, "Run directory or trace file (ours, Kineto JSON or nsys)");
  sub->add_option("--compare", opts->compare, "A second run, shown under the first");
  sub->add_option("--step", opts->step,
                  "Step number to open at (default: the one with the most avoidable idle)")
      ->check(inRange(wholeFrom(0)));
  sub->add_option("--compare-step", opts->compareStep,
                  "The compared run's step aligned with --step (default: the same number)")
      ->check(inRange(wholeFrom(0)));
  sub->add_option("--range", opts->range, "View A:B, in ms from the step's start");
  sub->add_option(
      "--screenshot", opts->screenshot,
      "Render one frame to this PNG and exit (under xvfb-run when there is no display)");
  sub->add_option("--size", opts->size, "Window size WxH")->capture_default_str();
  sub->add_option("--dp", opts->dp, "DP replica to show first")
      ->capture_default_str()
      ->check(inRange(wholeFrom(0, INT32_MAX - 1)));
  sub->add_flag("--expand", opts->expand,
                "Open every stage's GPU stream, NCCL, CUDA API and NVTX rows");
  sub->add_flag("--attach", opts->attach,
                "Show a job running now (started under `bubblescope record --dormant`), no files: "
                "its newest steps as they finish, the older ones scrolling out (every attachable "
                "process of this user unless --pid says which)");
  addRunningJobTargets(sub, opts->targets, "With --attach", "With --attach");
  addKeepOption(sub, opts->keepSeconds, "With --attach", 8);
  sub->add_option("--after-steps", opts->afterSteps,
                  "With --attach and --screenshot: render once this many steps finished and were "
                  "shown (default 1); sooner if the job ends or stops finishing steps")
      ->check(inRange(wholeFrom(1, 1'000'000)));
  addAnalysisFlags(sub, opts->analysis);
  sub->callback([&action, opts] { action = [opts] { return runView(*opts); }; });
}

// The commands a user may name under `parent`, comma-separated: hidden ones (engine worker, only
// the launcher starts it) are not offered.
std::string visibleCommandNames(const CLI::App& parent) {
  std::string names;
  for (const CLI::App* c :
       parent.get_subcommands([](const CLI::App* c) { return !c->get_group().empty(); })) {
    names += (names.empty() ? "" : ", ") + c->get_name();
  }
  return names;
}

// The command `name` under `parent`, hidden ones included; null if none is.
CLI::App* childNamed(CLI::App& parent, const std::string& name) {
  const auto named =
      parent.get_subcommands([&](const CLI::App* c) { return c->get_name() == name; });
  return named.empty() ? nullptr : named.front();
}

// The commands argv's words name, from the program down ("import", "kineto"), and the first word
// after them that is not an option (a misspelt command, or an input given before its format).
struct CommandPath {
  std::vector<CLI::App*> commands;
  std::string stray;
};

CommandPath commandPathOf(CLI::App& app, int argc, char** argv) {
  CommandPath path;
  CLI::App* current = &app;
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word.empty() || word[0] == '-') continue;
    CLI::App* next = childNamed(*current, word);
    if (next == nullptr) {
      path.stray = word;
      break;
    }
    path.commands.push_back(next);
    current = next;
  }
  return path;
}

// What a command line CLI11 refused says: for a command that needs one of its own commands (the
// program; import, export, engine) and was given none, which they are, rather than CLI11's "A
// subcommand is required"; otherwise CLI11's words, with the help of the command being read.
std::string parseErrorMessage(CLI::App& app, int argc, char** argv, const CLI::ParseError& e) {
  const CommandPath path = commandPathOf(app, argc, argv);
  std::string name = "bubblescope";
  for (const CLI::App* c : path.commands) name += " " + c->get_name();
  const CLI::App* last = path.commands.empty() ? &app : path.commands.back();
  if (last->get_require_subcommand_min() > 0) {
    const std::string names = visibleCommandNames(*last);
    if (!path.stray.empty()) {
      return name + ": unknown command '" + path.stray + "' (commands: " + names + "; see '" +
             name + " --help')";
    }
    return name + ": name a command: " + names + " (see '" + name + " --help')";
  }
  return "bubblescope: " + std::string(e.what()) + " (see '" + name + " --help')";
}

}  // namespace

int runCommandLine(int argc, char** argv) {
  CLI::App app{"bubblescope: find and explain the bubbles of pipeline-parallel training",
               "bubblescope"};
  app.set_version_flag("--version", std::string("bubblescope ") + BUBBLESCOPE_VERSION);
  app.require_subcommand(1);
  app.fallthrough(false);

  Action action;
  addSimulateCommand(app, action);
  addEngineCommand(app, action);
  addDemoCommand(app, action);
  addRecordCommand(app, action);
  addAttachCommands(app, action);
  addPsCommand(app, action);
  addAnalyzeCommand(app, action);
  addCheckCommand(app, action);
  addHangCommand(app, action);
  addWatchCommand(app, action);
  addImportCommand(app, action);
  addExportCommand(app, action);
  addViewCommand(app, action);

  // An unknown first word is the commonest slip; name it rather than "subcommand required".
  if (argc > 1 && argv[1][0] != '-') {
    const std::string first = argv[1];
    if (childNamed(app, first) == nullptr) {
      std::cerr << "bubblescope: unknown command '" << first
                << "' (commands: " << visibleCommandNames(app) << ")\n";
      return kBadInput;
    }
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << parseErrorMessage(app, argc, argv, e) << "\n";
    return kBadInput;
  }
  if (!action) return kOk;
  return action();
}

}  // namespace bubblescope::cli
