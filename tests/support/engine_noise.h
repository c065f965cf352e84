#pragma once
// How much a loaded machine added to a recorded engine run, by the run's own account (its
// truth.json): the engine's ops are sleeps and its transfers are sockets, so on a quiet machine
// an op lasts its cost and a transfer a tenth of a millisecond once both sides are there. On a
// shared 2-core machine at load 8 this sandbox's kernel stretches 4 ms sleeps by up to 4 ms and
// transfers to 4-8 ms (and ignores nice), which the analysis rightly reads as jitter and stalls:
// no assertion about a 1.5x stage or an 8 ms delay holds through that. So engine tests measure
// it, record again, and say in one line when the machine stayed too loaded (issue 28, rule 11).
#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "tests/support/subprocess.h"

namespace bubblescope::testing {

// What the machine added to the run's ops and transfers, a step: each op's overrun of its stage's
// median for its kind, chunk and slow factor, each transfer's time once both its sides had
// started beyond the run's median transfer (links with an injected comm delay left out in the
// steps it holds them: faults with an @FROM-TO range apply only there), and the time ops and
// sends began late (engineLateOps: a descheduled process or sender thread), summed over the steps
// from `firstStep` and divided by them; and the mean step span, to compare.
//
// Whether a run was steady enough to time is stageShare(): what the machine added to the stage it
// added most to (a transfer counts on the stage that receives it), a share of the step. Summed
// over the stages, a quiet machine's sleeps that overran their median by 50-70 us were 4-5% of
// an interleaved or ZB step with 96-192 ops, and those tests skipped with nothing else running;
// no stage's reading holds more than its own stage's share, and a quiet machine gives 1-2%.
// share() is the sum's, for bounds over all stages together.
//
// The transfers' typical time (up to the median, 90-104 us each on this VM: 3% of a p = 4, m = 8
// step) is the link's, not the machine's, so it does not count against a run; but it still
// moves what is read from the transfers (an op inferred from a receive, a stall's edge), so a
// tolerance for that reads spread(): the addition and the links' time together.
struct RunNoise {
  long long perStep = 0;     // ns
  long long late = 0;        // ns, of perStep: ops, receives and sends begun late (not stretched)
  long long links = 0;       // ns, the transfers' typical time (not in perStep)
  long long step = 0;        // ns
  long long worstStage = 0;  // ns, of perStep: what the stage with the most had added a step
  int worst = -1;            // that stage
  double share() const { return step > 0 ? static_cast<double>(perStep) / step : 0; }
  double stageShare() const { return step > 0 ? static_cast<double>(worstStage) / step : 0; }
  long long spreadPerStep() const { return perStep + links; }
  double spread() const { return step > 0 ? static_cast<double>(spreadPerStep()) / step : 0; }
};
// Throws std::runtime_error if the truth cannot be read.
RunNoise engineRunNoise(const std::filesystem::path& truthJson, int firstStep = 1);

// The same, step by step: what the machine added to each step's ops and transfers, and its span.
// A step the machine stretched by more than a fault's own size can rightly be read as that fault
// (one op 1.3x for a descheduled moment is a stage slow in that step): a test that asserts what
// each step names excuses those steps, and bounds how many it excuses.
struct StepNoise {
  long long added = 0;  // ns
  long long late = 0;   // ns, of added
  long long links = 0;  // ns, the transfers' typical time (RunNoise::links; not in added)
  long long step = 0;   // ns, the step's span over the stages
  std::map<int, long long> byStage;  // ns, added, by stage
  double share() const { return step > 0 ? static_cast<double>(added) / step : 0; }
  void add(int stage, long long ns) {
    added += ns;
    byStage[stage] += ns;
  }
  long long worstStage() const {
    long long worst = 0;
    for (const auto& [stage, ns] : byStage) worst = std::max(worst, ns);
    return worst;
  }
  // The stage the machine added most to, a share of the step (RunNoise::stageShare).
  double stageShare() const { return step > 0 ? static_cast<double>(worstStage()) / step : 0; }
};
std::map<int, StepNoise> engineStepNoise(const std::filesystem::path& truthJson, int firstStep = 1);

// An op the machine made late, not longer: the stage's process began it (or posted its receive)
// after it could have, or its stage's sender thread began its send after the op had ended and the
// link was free, each by more than 0.1 ms (less is the stage's own overhead between its ranges).
// The analysis rightly reads that as a host or other stall of that op. From the steps from
// `firstStep`; throws std::runtime_error if the truth cannot be read.
struct LateOp {
  int stage = 0;
  int step = 0;      // the step's number
  std::string kind;  // "F", "B", "W", "BW"
  int mb = 0, chunk = 0;
  long long ns = 0;
};
std::vector<LateOp> engineLateOps(const std::filesystem::path& truthJson, int firstStep = 1);

// A recorded engine run that the machine stretched by at most `bound` of its step, made up to
// `attempts` times, or else the quietest of them: what every engine test that times a run records.
struct SteadyRecording {
  ProcessResult process;
  RunNoise noise;
  int attempts = 0;  // how many were made
  int kept = 0;      // which of them this is (from 1): the steady one, or the quietest
  bool steady = false;
  // "the machine was too loaded to time this run: ..." when not steady; empty when it is, and
  // when the recording failed (the test reports its exit code, not the load).
  std::string tooLoaded() const;
};
// On stageShare(): a quiet machine gives 1.2-2.1% (2026-12-05: 1F1B, interleaved, ZB-H1, ZB-V,
// p = 4, m = 8): half again as much is a loaded machine. Bounds on what all stages together
// hold read perStep or spreadPerStep, which grow with the sum.
inline constexpr double kSteadyShare = 0.03;

// One recording of the run, made afresh for attempt `attempt` (from 1): how its process ended
// and where the engine wrote its truth.json. A runner that needs the quietest's files when none
// was steady (to report it or compare it) writes each attempt to its own place.
struct Recorded {
  ProcessResult process;
  std::filesystem::path truth;
};
using RecordOnce = std::function<Recorded(int attempt)>;
// Stops at the first recording that exits nonzero (the test says why) or is steady.
SteadyRecording recordUntilSteady(const RecordOnce& once, double bound = kSteadyShare,
                                  int attempts = 3);

// A live job (one a watch read as it ran): beyond `bound` of its step, all stages together (what
// 2 ms ops pick up from a shared machine, scheduling and the watch itself, is up to a tenth), the
// line that says it was too loaded to time; "" otherwise. Its tests run the job again while it
// says so (liveJobUntilSteady) and skip with the last one's line.
std::string liveJobTooLoaded(const std::filesystem::path& truthJson, double bound = 0.10);

// A live job run by `once(attempt)` (from 1), which returns the line that says the machine was too
// loaded to time it, or "" when it was steady or failed (the test reports how it ended). A live
// job is timed as it runs, so only another job can be steadier: made up to `attempts` times while
// too loaded, each such line printed. Returns the last job's line: "" or the test's skip line.
std::string liveJobUntilSteady(const std::function<std::string(int attempt)>& once,
                               int attempts = 3);

// recordEngineRun into `outDir` and `truthPath`, made afresh there each time (so when none was
// steady the files are the last one's: the test skips on it).
SteadyRecording recordSteadyEngineRun(const std::string& outDir, const std::string& truthPath,
                                      const std::vector<std::string>& engineArgs);
// The same with another bubblescope program (an installed one) recording and running it
// (recordEngineRunWith).
SteadyRecording recordSteadyEngineRunWith(const std::string& program, const std::string& outDir,
                                          const std::string& truthPath,
                                          const std::vector<std::string>& engineArgs,
                                          const ProcessOptions& options = {});

}  // namespace bubblescope::testing
