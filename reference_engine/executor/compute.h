#pragma once
// What an op does while its range is open: sleep for its cost, or really compute. The stage
// runner moves the data between stages; a Compute only turns an op's input into its output.
#include <cstdint>
#include <memory>
#include <string>

#include "reference_engine/executor/message.h"
#include "reference_engine/executor/stage_plan.h"

namespace bubblescope::engine {

enum class ComputeMode { Sleep, Mlp, Cuda };

const char* computeModeName(ComputeMode mode);  // "sleep", "mlp", "cuda"
// Throws std::invalid_argument naming the known modes.
ComputeMode parseComputeMode(const std::string& name);
// Why this build on this machine cannot run `mode`, in one sentence; "" when it can (cuda: built
// with the CUDA toolkit, and a driver and a GPU here).
std::string computeModeUnavailable(ComputeMode mode);

// What grad_sync all-reduces (sums over stages): the squared gradient norm, for clipping, and
// the loss, which only the stage holding the model's last layer knows.
struct GradSyncValues {
  double gradSquares = 0;
  double lossSum = 0;
  double lossCount = 0;
};

class Compute {
 public:
  virtual ~Compute() = default;
  // `input` is the activation (F) or gradient (B/BW) from the neighbouring virtual stage, empty
  // where there is none. `costNs` is the op's cost with faults applied (sleep mode); `scale` the
  // fault factor alone (real compute pads its measured time by it). Returns what goes on, empty
  // when the op has no output.
  virtual Payload runOp(const PlannedOp& op, int step, Payload input, int64_t costNs,
                        double scale) = 0;
  virtual GradSyncValues gradSyncContribution() = 0;
  virtual void runOptimizer(const GradSyncValues& total) = 0;
};

}  // namespace bubblescope::engine
