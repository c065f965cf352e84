#pragma once
// A pipeline's avoidable idle grouped by what caused it (issue 26, item 4): one entry per root
// cause, with the idle it cost on every stage and step, what removing it would win, and the
// knock-ons it caused elsewhere folded under it. Built by analyzer/idle/root_causes.h.
#include <compare>
#include <cstddef>
#include <string>
#include <vector>

#include "analyzer/result/idle_class.h"
#include "reference_engine/schedule/op.h"
#include "traces/model/time.h"

namespace bubblescope::analysis {

// What makes two gaps' causes the same cause (analysis.md, "Root causes"):
// - stall: host or other: the stage and the op the host launched or the device started late;
// - stall: comm: the link, sending stage -> receiving stage (a slow link delays every message);
// - imbalance: the stage (its mean op costs exceed the ideal, whichever op was binding);
// - jitter: the stage and the op that ran long (one op instance, the same op in every step);
// - a class the blame walk found no place for: the gap's own stage for a stall, none otherwise.
// One cause may occur in several steps; they are one entry.
struct CauseId {
  IdleClass cause = IdleClass::OtherStall;
  int stage = -1;    // the stage it is on (a link's sender); -1: no place found
  int toStage = -1;  // a link's receiver; -1 otherwise
  bool hasOp = false;
  engine::Op op;  // the op, when hasOp

  auto operator<=>(const CauseId&) const = default;
};

// Knock-ons named in a cause's line (the rest are counted): a summary's analysis keeps this many.
inline constexpr size_t kKnockOnsNamed = 3;

struct RootCause {
  CauseId id;
  std::string text;  // "stage 1 started F5 late (stall: other)"
  // How much shorter the analysed steps would be without it, summed over them (the simulator's
  // replay of each step with the cause taken out; whatif/cause_wins.h says how per class).
  TimeNs win = 0;
  TimeNs idle = 0;         // the avoidable idle of every gap blamed on it
  std::vector<int> steps;  // indexes into PipelineResult::steps it occurs in, ascending
  // Indexes into PipelineResult::gaps, largest avoidable idle first: `own` where it happened
  // (a stall's gap before its op on its stage), `knockOns` everywhere else.
  // A summary's analysis keeps only the largest few of each (PipelineResult::gapIndex): the
  // counts and the knock-ons' stages are of them all.
  std::vector<int> own;
  std::vector<int> knockOns;
  size_t ownCount = 0, knockOnCount = 0;
  std::vector<int> knockOnStages;  // ascending
  TimeNs knockOnIdle = 0;
  double costRatio = 0;    // imbalance and jitter: the largest measured / ideal cost behind it
  bool meanRatio = false;  // costRatio is the stage's mean (no gap's walk named an op)
};

}  // namespace bubblescope::analysis
