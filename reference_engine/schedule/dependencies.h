#pragma once
// The op DAG of analysis.md §5, built once per order so that validate() and the simulator walk it
// in O(ops): F(vs, mb) waits for F(vs-1, mb); B or BW (vs, mb) for B/BW(vs+1, mb), or on the last
// virtual stage for its own F; W for its own B. Same-stage order is the order given.
#include <cstdint>
#include <span>
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

// An op another op waits for beyond its input, as (stage, position in that stage's order).
struct Await {
  int32_t stage = 0, index = 0;
  bool operator==(const Await&) const = default;
};

// An op graph as a walk reads it: a graph's own lists, or in a replay of an observed order its
// inputs and awaited ops as that order posted its transfers (Posting), read where they are: a
// copy of the graph with them was 4.6 MB a replay of 10,000 stages (issue 28).
struct GraphView {
  int p = 0;
  std::span<const int32_t> stageBegin, inputStage, inputIndex;
  // Ops each op also waits for beyond its input: op i's are awaits[awaitBegin[i],
  // awaitBegin[i + 1]). Empty: none (a schedule's own graph).
  std::span<const int32_t> awaitBegin;
  std::span<const Await> awaits;

  GraphView(const OpGraph& g)  // NOLINT: every graph is read as its view
      : p(g.p), stageBegin(g.stageBegin), inputStage(g.inputStage), inputIndex(g.inputIndex) {}
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
