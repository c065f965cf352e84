#pragma once
// One stage's training loop, as a framework runs it: per step, the stage's ops in schedule order,
// each waiting for its input (RECV), computing (its op range) and handing its output to the
// channel (SEND, asynchronous); then grad_sync and the optimizer. Faults are injected here.
// Without labels, `nccl` wraps the transfers and the all-reduces as NCCL's own ranges would.
#include <map>
#include <memory>
#include <vector>

#include "reference_engine/executor/annotator.h"
#include "reference_engine/executor/channel.h"
#include "reference_engine/executor/compute.h"
#include "reference_engine/executor/engine_config.h"
#include "reference_engine/executor/mailbox.h"
#include "reference_engine/executor/nccl_ranges.h"
#include "reference_engine/executor/op_costs.h"
#include "reference_engine/executor/stage_plan.h"
#include "reference_engine/executor/stage_record.h"

namespace bubblescope::engine {

class StageRunner {
 public:
  StageRunner(const EngineConfig& config, int stage, Mailbox& mailbox,
              std::map<int, std::unique_ptr<Channel>>& channels, Annotator& annotator,
              Compute& compute, StageRecord& record, const NcclRanges& nccl);

  // Runs every step. Throws PeerLost when a neighbour ended first.
  void run();

 private:
  void runStep(int step);
  Payload receiveInput(int step, const PlannedOp& planned);
  void sendOutput(int step, const PlannedOp& planned, Payload output);
  void injectFaults(int step, const PlannedOp& planned);
  // Sums `values` over all stages along the chain of stages: partial sums travel to stage 0
  // (`towardsFirst` messages), the total travels back (`back`).
  GradSyncValues allReduce(int step, MessageKind towardsFirst, MessageKind back,
                           GradSyncValues values);
  void sendValues(int step, MessageKind kind, int to, const GradSyncValues& values);
  GradSyncValues receiveValues(int step, MessageKind kind, int from);

  const EngineConfig& config_;
  const int stage_;
  const std::vector<PlannedOp> plan_;
  const CostModel costs_;
  Mailbox& mailbox_;
  std::map<int, std::unique_ptr<Channel>>& channels_;
  Annotator& annotator_;
  Compute& compute_;
  StageRecord& record_;
  const NcclRanges& nccl_;
  const Communicator pipelineComm_;         // every stage: the pipeline's p2p and its grad_sync
  std::map<MessageKey, Payload> handoffs_;  // between chunks of this stage (the turn of a V)
};

}  // namespace bubblescope::engine
