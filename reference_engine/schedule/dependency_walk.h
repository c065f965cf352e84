#pragma once
// Runs a schedule's ops in an order that respects both each stage's order and every op's
// dependency, the way stages blocking on their inputs would: the core of the deadlock check and
// of the simulator. O(ops + events), no allocation per op.
#include <cstdint>
#include <vector>

#include "reference_engine/schedule/dependencies.h"

namespace bubblescope::engine {

// Calls visit(stage, flatIndex) for every op that can run, each after the op that completes the
// event it needs. Returns how many ops of each stage ran: all of them unless the order deadlocks
// (or needs an event no op completes), in which case each stage stopped at its first blocked op.
template <class Visit>
std::vector<int32_t> walkInDependencyOrder(const OpGraph& g, Visit&& visit) {
  std::vector<int32_t> position(g.p, 0);
  std::vector<uint8_t> done(g.events(), 0);
  // Stages blocked on an event, as intrusive lists: a stage waits for one event at a time.
  std::vector<int32_t> firstWaiter(g.events(), -1);
  std::vector<int32_t> nextWaiter(g.p, -1);
  std::vector<int32_t> runnable;
  runnable.reserve(g.p);
  for (int s = g.p - 1; s >= 0; --s) runnable.push_back(s);

  while (!runnable.empty()) {
    const int s = runnable.back();
    runnable.pop_back();
    const int32_t begin = g.stageBegin[s];
    const int32_t count = g.stageBegin[s + 1] - begin;
    while (position[s] < count) {
      const int32_t i = begin + position[s];
      const int32_t need = g.needs[i];
      if (need >= 0 && !done[need]) {
        nextWaiter[s] = firstWaiter[need];
        firstWaiter[need] = s;
        break;
      }
      visit(s, i);
      const int32_t made = g.produces[i];
      done[made] = 1;
      for (int32_t w = firstWaiter[made]; w >= 0; w = nextWaiter[w]) runnable.push_back(w);
      firstWaiter[made] = -1;
      ++position[s];
    }
  }
  return position;
}

}  // namespace bubblescope::engine
