#pragma once
// What ops cost in the simulator: time per kind (the same on every stage, or per stage) or a
// measured time per op, the transfer latency of cross-stage dependencies, and activation memory.
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <vector>

#include "reference_engine/schedule/dependencies.h"
#include "reference_engine/schedule/op.h"

namespace bubblescope::engine {

using TimeNs = int64_t;

// One microbatch's pass through one stage's whole share of the model, T_F, T_B and T_W of the
// ZB paper. A schedule with v chunks per stage runs each chunk for 1/v of it (see chunkShare), so
// the same costs compare schedules of the same model on the same p stages.
struct KindCosts {
  TimeNs f = 0;
  TimeNs b = 0;    // input gradient
  TimeNs w = 0;    // weight gradient
  TimeNs bw = -1;  // fused backward; negative means b + w

  TimeNs of(OpKind kind) const;
  // T_F + T_B + T_W: the work of one microbatch, the ZB paper's unit of ideal compute.
  TimeNs perMicrobatch() const { return f + b + w; }
  bool operator==(const KindCosts&) const = default;
};

// Activation memory per microbatch on one stage, in the caller's unit (bytes in the CLI), with
// the ZB paper's accounting: F allocates M_B, B changes it by M_W - M_B, W frees M_W, BW frees
// M_B. Split over chunks like the costs.
struct ActivationMemory {
  int64_t mB = 1;  // M_B: what F keeps for the backward
  int64_t mW = 0;  // M_W: what B leaves for W (the layer inputs the weight gradient needs)
};

// How the stages of an observed order posted their transfers, which a replay of that order keeps
// whatever its op costs: the replays of one step under several costs share one (at 10,000 stages
// each replay's copy was 7 MB, issue 28). Only for the order observed.
struct Posting {
  // Shaped like schedule.stages, or empty: a flagged op's input moves only once the op before it
  // on its stage has finished, as when a stage posts each receive together with the send of its
  // previous op's output (torch's batch_isend_irecv, Megatron's send_forward_recv_backward):
  // the transfer then starts at max(producer end, previous op end).
  std::vector<std::vector<uint8_t>> receiveAfterPrevious;
  // Shaped like schedule.stages, or empty: for an op whose input comes from another stage, the
  // position on that stage of the op whose end the input moves after (-1: its producer's), a
  // later op than the producer: the send was posted only with that op's p2p (Megatron-LM's
  // interleaved 1F1B sends a forward's output after the next op).
  std::vector<std::vector<int32_t>> sentAfter;
  // Other ops an op waits for, each as (stage, position): a blocking batch of transfers before
  // it (Megatron-LM's interleaved 1F1B) holds the stage until every transfer in it has moved, a
  // receive for a later op (its producer's end) and a send (the end of the op after which its
  // receiver posted). The op is ready no sooner than each such op's end plus the transfer. Flat
  // over the schedule's ops, stage 0's first: op i's are awaits[awaitBegin[i], awaitBegin[i +
  // 1]); both empty: none.
  using Await = engine::Await;
  std::vector<int32_t> awaitBegin;
  std::vector<Await> awaits;
};

struct SimCosts {
  KindCosts perKind;                // every stage, unless perStage is set
  std::vector<KindCosts> perStage;  // empty, or one entry per stage
  // Measured times, the shape of schedule.stages: op i of stage s takes perOp[s][i], as given
  // (not split over chunks). Overrides perKind and perStage. Empty: none.
  std::vector<std::vector<TimeNs>> perOp;
  TimeNs transfer = 0;  // added to every dependency whose two ops run on different stages
  // How an observed order posted its transfers; null: each with its own op.
  std::shared_ptr<const Posting> posting;
  ActivationMemory memory;

  const KindCosts& stage(int s) const { return perStage.empty() ? perKind : perStage[s]; }
  const Posting& posted() const;  // `posting`, or none
};

// Costs that cannot be simulated (negative, or tables of the wrong shape). One sentence.
class CostError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Chunk c's share of a per-stage amount split over v chunks; the shares add up to the amount
// exactly (the remainder goes to the later chunks, one unit each).
inline int64_t chunkShare(int64_t amount, int chunk, int v) {
  return amount * (chunk + 1) / v - amount * chunk / v;
}

}  // namespace bubblescope::engine
