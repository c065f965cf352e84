#pragma once
// The op DAG of analysis.md §5, numbered densely so that validate() and the simulator walk it in
// O(ops): F(vs, mb) waits for F(vs-1, mb); B or BW (vs, mb) for B/BW(vs+1, mb), or on the last
// virtual stage for its own F; W for its own B. Same-stage order is the order given.
#include <cstdint>
#include <string>
#include <vector>

#include "reference_engine/schedule/schedule.h"

namespace bubblescope::engine {

// What one op completes for one (virtual stage, microbatch).
enum class Phase : uint8_t {
  Forward,     // F
  InputGrad,   // B, or the input-gradient half of BW
  WeightGrad,  // W, or the weight-gradient half of BW
};

// A schedule's ops flattened over stages: op i of stage s is entry stageBegin[s] + i.
struct OpGraph {
  int p = 0;
  int m = 0;
  int virtualStages = 0;
  std::vector<int32_t> stageBegin;  // p + 1 entries
  std::vector<int32_t> needs;       // the event each op waits for, -1 when none
  std::vector<int32_t> produces;    // the event each op completes (BW: its InputGrad event)

  int events() const { return 3 * virtualStages * m; }
  int opCount() const { return stageBegin.empty() ? 0 : stageBegin.back(); }
  int event(Phase phase, int virtualStage, int mb) const {
    return (static_cast<int>(phase) * virtualStages + virtualStage) * m + mb;
  }
  // "B3 of virtual stage 5 (stage 2)": for messages.
  std::string describeEvent(const Schedule& schedule, int event) const;
};

// The event `op` on `stage` completes and the one it waits for. The op must be in range.
int producedEvent(const Schedule& schedule, const OpGraph& graph, int stage, const Op& op);
int neededEvent(const Schedule& schedule, const OpGraph& graph, int stage, const Op& op);

// Builds the graph. The schedule must have p stages and every op in range (see
// runnabilityProblems() in validate.h); this only asserts it.
OpGraph buildOpGraph(const Schedule& schedule);

// "stage 2 op #5 (B3.1)": how messages name one op of a per-stage order.
std::string describeOp(const Schedule& schedule, int stage, int index);

}  // namespace bubblescope::engine
