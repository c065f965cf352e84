#pragma once
// Runs a schedule's ops in an order that respects both each stage's order and every op's input,
// the way stages blocking on their inputs would: the core of the deadlock check and of the
// simulator. O(ops), and its scratch is O(p): nothing per op or per event.
#include <cstdint>
#include <vector>

#include "reference_engine/schedule/dependencies.h"

namespace bubblescope::engine {

// The walk's lists, kept by a caller that walks many times (the simulator, thousands of times
// an analysis) so that a walk allocates nothing once they have room.
struct WalkScratch {
  std::vector<int32_t> position;  // how many ops of each stage ran: the walk's result
  std::vector<int32_t> firstWaiter, nextWaiter, awaited, runnable;
};

// Calls visit(stage, flatIndex) for every op that can run, each after the op it waits for.
// Leaves in scratch.position how many ops of each stage ran: all of them unless the order
// deadlocks, in which case each stage stopped at its first blocked op.
template <class Visit>
void walkInDependencyOrder(const GraphView& g, Visit&& visit, WalkScratch& scratch) {
  std::vector<int32_t>& position = scratch.position;
  position.assign(g.p, 0);
  // Stages blocked on another stage's op, as intrusive lists per awaited stage: a stage waits
  // for one op at a time, and few stages (the neighbours) ever wait on the same one.
  std::vector<int32_t>& firstWaiter = scratch.firstWaiter;
  std::vector<int32_t>& nextWaiter = scratch.nextWaiter;
  std::vector<int32_t>& awaited = scratch.awaited;
  firstWaiter.assign(g.p, -1);
  nextWaiter.assign(g.p, -1);
  awaited.assign(g.p, -1);
  std::vector<int32_t>& runnable = scratch.runnable;
  runnable.clear();
  runnable.reserve(g.p);
  for (int s = g.p - 1; s >= 0; --s) runnable.push_back(s);

  while (!runnable.empty()) {
    const int s = runnable.back();
    runnable.pop_back();
    const int32_t begin = g.stageBegin[s];
    const int32_t count = g.stageBegin[s + 1] - begin;
    while (position[s] < count) {
      const int32_t i = begin + position[s];
      // The first op it waits for that has not run: its input, then any other it awaits.
      int32_t t = g.inputStage[i], at = g.inputIndex[i];
      if (t >= 0 && position[t] > at) t = -1;
      if (t < 0 && !g.awaitBegin.empty()) {
        for (int32_t e = g.awaitBegin[i]; e < g.awaitBegin[i + 1]; ++e) {
          if (position[g.awaits[e].stage] <= g.awaits[e].index) {
            t = g.awaits[e].stage;
            at = g.awaits[e].index;
            break;
          }
        }
      }
      if (t >= 0) {
        awaited[s] = at;
        nextWaiter[s] = firstWaiter[t];
        firstWaiter[t] = s;
        break;
      }
      visit(s, i);
      const int32_t ran = position[s]++;
      // Wake the stages that waited for exactly this op; keep the others waiting.
      int32_t* link = &firstWaiter[s];
      while (*link >= 0) {
        const int32_t w = *link;
        if (awaited[w] <= ran) {
          *link = nextWaiter[w];
          runnable.push_back(w);
        } else {
          link = &nextWaiter[w];
        }
      }
    }
  }
}

// The same with lists of its own: returns how many ops of each stage ran.
template <class Visit>
std::vector<int32_t> walkInDependencyOrder(const GraphView& g, Visit&& visit) {
  WalkScratch w;
  walkInDependencyOrder(g, visit, w);
  return std::move(w.position);
}

}  // namespace bubblescope::engine
