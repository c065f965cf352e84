#pragma once
// A live watch that fell behind its job (a busy node, a slow poll): the agents' memory windows
// keep a few steps, and a step read after its start was pruned is no longer whole. Said as what
// it is, rather than as what the analysis of its remains would say ("no step has ops on every
// stage"). Each snapshot says from which step on its window holds every step whole
// (`whole_from_step`: agent/core/step_starts.h).
#include <cstdint>
#include <string>
#include <vector>

namespace bubblescope::cli {

struct HeldFrom {
  std::string who;             // "rank 3 (pid 2821)"
  int64_t wholeFromStep = -1;  // -1: the agent does not know
};

// The first step every rank that knows still holds whole (the newest of their whole_from_step);
// -1 when none knows.
int64_t heldByAll(const std::vector<HeldFrom>& held);

// "" when every rank that knows still held step `step`'s start; else why the step is not read:
// "the watch fell behind the job: rank 3 (pid 2821) and 7 more no longer held this step's start
// when it looked (each keeps 0.8 s; --keep keeps more)".
std::string notHeldLine(int64_t step, const std::vector<HeldFrom>& held, int64_t keepNs);

}  // namespace bubblescope::cli
