#pragma once
// The op DAG of analysis.md §5, built once per order so that validate() and the simulator walk it
// in O(ops): F(vs, mb) waits for F(vs-1, mb); B or BW (vs, mb) for B/BW(vs+1, mb), or on the last
// virtual stage for its own F; W for its own B. Same-stage order is the order given.
#include <cstdint>
#include <string>
#include <vector>

#include "reference_engine/schedule/problem.h"
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
  // The op each op waits for, as (stage, position in that stage's order); -1 when none (or when
  // no op produces its input, which buildOpGraph reports).
  std::vector<int32_t> inputStage;
  std::vector<int32_t> inputIndex;
  // Ops each op also waits for beyond its input, as (stage, position) lists: op i's are
  // [awaitBegin[i], awaitBegin[i + 1]) of awaitStage / awaitIndex. Empty: none (a schedule's
  // own graph; the simulator adds them for a replay of an observed order, SimCosts::awaits).
  std::vector<int32_t> awaitBegin, awaitStage, awaitIndex;
  // Which op completed each event, as a flat op index; -1 when none.
  std::vector<int32_t> eventOp;

  int events() const { return 3 * virtualStages * m; }
  int opCount() const { return stageBegin.empty() ? 0 : stageBegin.back(); }
  int event(Phase phase, int virtualStage, int mb) const {
    return (static_cast<int>(phase) * virtualStages + virtualStage) * m + mb;
  }
  int stageOfOp(int32_t flat) const;  // O(log p)
  // "B3 of virtual stage 5 (stage 2)": for messages.
  std::string describeEvent(const Schedule& schedule, int event) const;
};

// The event `op` on `stage` completes (BW: its InputGrad) and the one it waits for (-1: none).
int producedEvent(const Schedule& schedule, const OpGraph& graph, int stage, const Op& op);
int neededEvent(const Schedule& schedule, const OpGraph& graph, int stage, const Op& op);

// Builds the graph of a schedule with p stages and every op in range (see validate.h's
// structuralProblems(), which checks that first). Each op that repeats an event and each op whose
// input no op produces is appended to `problems` when given.
OpGraph buildOpGraph(const Schedule& schedule, std::vector<Problem>* problems = nullptr);

// "stage 2 op #5 (B3.1)": how messages name one op of a per-stage order.
std::string describeOp(const Schedule& schedule, int stage, int index);

}  // namespace bubblescope::engine
