#pragma once
// One thing wrong with a per-stage op order, as a sentence naming the op or stage at fault.
#include <string>

namespace bubblescope::engine {

enum class ProblemKind {
  Shape,             // stage count differs from p, or p, m, v out of range
  OutOfRange,        // an op names a microbatch outside [0, m) or a chunk outside [0, v)
  Duplicate,         // an op (or half of a BW) appears twice
  Missing,           // an F, B or W of some (virtual stage, microbatch) never runs
  MissingInput,      // an op waits for an op that no stage runs
  Deadlock,          // the stages block each other in the given order
  ActivationMemory,  // a stage holds more activations than the schedule's bound
};

struct Problem {
  ProblemKind kind;
  std::string message;
};

}  // namespace bubblescope::engine
