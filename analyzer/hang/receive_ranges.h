#pragma once
// Which of a rank's ranges are receives it can block in, read with the recognizer's built-in rule
// sets (analyzer/recognize), so every framework they know counts: bubblescope's `RECV B mb=3
// from=2`, torch.distributed.pipelining's `PP:2RECV_B3`, Megatron's `forward-recv`, DeepSpeed's
// `RecvGrad`, ... and the stage each waits on. Pure.
#include <optional>
#include <string_view>

namespace bubblescope::analysis::hang {

struct Receive {
  bool gradient = false;     // receives gradients (from the next stage), else activations
  std::optional<int> from;   // the stage the label names as the sender, if it names one
  std::optional<int> stage;  // the (virtual) stage the label says it runs on, if it says
};

// The receive a range name stands for under the first built-in rule set that reads it as one.
std::optional<Receive> receiveRange(std::string_view name);

// The stage a receive of stage `stage` (of `stages` in its pipeline) waits on: the sender its
// label names, else the previous stage for activations and the next one for gradients, wrapping
// around as interleaved schedules do (chunk 0 of the first stage receives from the last one).
int senderStage(const Receive& r, int stage, int stages);

// A step range under any rule set or the common markers ("step 3", "ProfilerStep#3", ...).
bool isStepRange(std::string_view name);

}  // namespace bubblescope::analysis::hang
