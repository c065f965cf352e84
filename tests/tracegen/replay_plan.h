#pragma once
// What one rank of a generated job does, as a program run under the capture agent does it: timed
// host actions (NVTX ranges, NCCL calls, CUDA launches and synchronisations) and, for every
// launch, the kernel the GPU ran. Made from a JobTimeline by agent_plan.h, replayed in real time
// by agent_replay_app. A text format, one action per line, so that a failing replay can be read.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "traces/model/time.h"

namespace bubblescope::tracegen {

enum class ReplayVerb : uint8_t {
  Push,        // nvtxRangePushA(text)
  Pop,         // nvtxRangePop()
  Launch,      // cudaLaunchKernel of the kernel named `text`
  Send,        // ncclSend(count bf16 to peer on comm, stream)
  Recv,        // ncclRecv(count bf16 from peer on comm, stream)
  GroupStart,  // ncclGroupStart()
  GroupEnd,    // ncclGroupEnd(): launches the group's fused kernel
  AllReduce,   // ncclAllReduce(count fp32, sum, comm, stream)
  Sync,        // the CUDA call named `text` (cudaStreamSynchronize, ...), returning at `until`
  // cudaLaunchKernel of the kernel named `text` from the autograd engine's device thread (a
  // backward's kernels, as torch launches them), while the main thread waits in backward().
  AutogradLaunch,
  Malloc,  // cudaMalloc of `count` bytes of device memory at address `stream`
  Free,    // cudaFree of the `count` bytes at address `stream`
};

// The GPU's side of a launch: when its kernel ran and on which stream (CUPTI's stream id).
struct ReplayKernel {
  TimeNs start = 0, end = 0;
  uint32_t stream = 0;
  bool operator==(const ReplayKernel&) const = default;
};

// Times are ns from the replay's origin on the rank's own clock (a skewed rank's are shifted).
struct ReplayAction {
  TimeNs at = 0;
  ReplayVerb verb = ReplayVerb::Push;
  int comm = -1;                       // NCCL calls: index into ReplayPlan::comms
  int peer = -1;                       // Send, Recv: the peer's rank within the communicator
  uint64_t count = 0;                  // NCCL calls: elements
  uint64_t stream = 0;                 // NCCL calls: the cudaStream_t handle passed
  TimeNs until = 0;                    // Sync: when the call returns
  std::optional<ReplayKernel> kernel;  // the kernel this action launches (NCCL: inside the call)
  std::string text;                    // Push: the range; Launch: the kernel; Sync: the call
  bool operator==(const ReplayAction&) const = default;
};

// A communicator, made with ncclCommInitRank from a unique id derived from its name, as every
// member derives it (torch hands the id round through its store).
struct ReplayComm {
  std::string name;  // no spaces
  int size = 0, rank = 0;
  bool operator==(const ReplayComm&) const = default;
};

struct ReplayPlan {
  int rank = 0, worldSize = 0;
  uint32_t device = 0;        // CUPTI's device id for the kernels
  uint64_t deviceMemory = 0;  // the device's total memory, 0 = not described
  std::vector<ReplayComm> comms;
  std::vector<ReplayAction> actions;  // by time
  bool operator==(const ReplayPlan&) const = default;
};

std::string formatPlan(const ReplayPlan& plan);
// Throws std::runtime_error naming the line for text that is not a plan.
ReplayPlan parsePlan(std::string_view text);

std::string_view verbName(ReplayVerb verb);

}  // namespace bubblescope::tracegen
