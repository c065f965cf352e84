#pragma once
// How much a loaded machine added to a recorded engine run, by the run's own account (its
// truth.json): the engine's ops are sleeps and its transfers are sockets, so on a quiet machine
// an op lasts its cost and a transfer a tenth of a millisecond once both sides are there. On a
// shared 2-core machine at load 8 this sandbox's kernel stretches 4 ms sleeps by up to 4 ms and
// transfers to 4-8 ms (and ignores nice), which the analysis rightly reads as jitter and stalls:
// no assertion about a 1.5x stage or an 8 ms delay holds through that. So engine tests measure
// it, record again, and say in one line when the machine stayed too loaded (issue 28, rule 11).
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "tests/support/subprocess.h"

namespace bubblescope::testing {

// What the machine added to the run's ops and transfers, a step: each op's overrun of its stage's
// median for its kind, chunk and slow factor, each transfer's time once both its sides had
// started (links with an injected comm delay left out in the steps it holds them: faults with an
// @FROM-TO range apply only there), and the time ops and sends began late (engineLateOps:
// a descheduled process or sender thread), summed over the steps from `firstStep` and divided by
// them; and the mean step span, to compare. A quiet machine: 2% of the step.
struct RunNoise {
  long long perStep = 0;  // ns
  long long late = 0;     // ns, of perStep: ops, receives and sends begun late (not stretched)
  long long step = 0;     // ns
  double share() const { return step > 0 ? static_cast<double>(perStep) / step : 0; }
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
  long long step = 0;   // ns, the step's span over the stages
  double share() const { return step > 0 ? static_cast<double>(added) / step : 0; }
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

// A recorded engine run that the machine stretched by at most `bound` of its step
// (recordEngineRun, up to `attempts` times, the output directory and truth made afresh each
// time), or the last of them.
struct SteadyRecording {
  ProcessResult process;
  RunNoise noise;
  int attempts = 0;
  bool steady = false;
  // "the machine was too loaded to time this run: ..." when not steady; empty when it is.
  std::string tooLoaded() const;
};
inline constexpr double kSteadyShare = 0.04;
SteadyRecording recordSteadyEngineRun(const std::string& outDir, const std::string& truthPath,
                                      const std::vector<std::string>& engineArgs,
                                      double bound = kSteadyShare, int attempts = 3);

}  // namespace bubblescope::testing
