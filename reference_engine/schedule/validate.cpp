#include "reference_engine/schedule/validate.h"

#include <algorithm>

#include "reference_engine/schedule/dependency_walk.h"
#include "reference_engine/schedule/schedule_table.h"

namespace bubblescope::engine {
namespace {

// Caps what is kept, counting the rest: a broken order of 10^5 ops must not print 10^5 lines.
std::vector<Problem> capped(std::vector<Problem> problems) {
  if (problems.size() <= kMaxProblems) return problems;
  const size_t leftOut = problems.size() - kMaxProblems;
  problems.resize(kMaxProblems);
  problems.back().message += " (and " + std::to_string(leftOut) + " more problems)";
  return problems;
}

bool checkShapeAndRanges(const Schedule& s, std::vector<Problem>& out) {
  if (s.p < 1 || s.m < 1 || s.v < 1) {
    out.push_back({ProblemKind::Shape,
                   "schedule needs p, m and v of at least 1 (p=" + std::to_string(s.p) +
                       ", m=" + std::to_string(s.m) + ", v=" + std::to_string(s.v) + ")"});
    return false;
  }
  if (s.layout == ChunkLayout::V && s.v != 2) {
    out.push_back({ProblemKind::Shape,
                   "a V layout has exactly 2 chunks per stage (v=" + std::to_string(s.v) + ")"});
    return false;
  }
  if (static_cast<int>(s.stages.size()) != s.p) {
    out.push_back({ProblemKind::Shape, "schedule has " + std::to_string(s.stages.size()) +
                                           " per-stage orders for p=" + std::to_string(s.p) +
                                           " stages"});
    return false;
  }
  const size_t before = out.size();
  for (int stage = 0; stage < s.p; ++stage) {
    const auto& ops = s.stages[stage];
    for (size_t i = 0; i < ops.size(); ++i) {
      if (ops[i].mb < 0 || ops[i].mb >= s.m) {
        out.push_back({ProblemKind::OutOfRange,
                       describeOp(s, stage, static_cast<int>(i)) + " names microbatch " +
                           std::to_string(ops[i].mb) + " of m=" + std::to_string(s.m)});
      } else if (ops[i].chunk < 0 || ops[i].chunk >= s.v) {
        out.push_back({ProblemKind::OutOfRange, describeOp(s, stage, static_cast<int>(i)) +
                                                    " names chunk " + std::to_string(ops[i].chunk) +
                                                    " of v=" + std::to_string(s.v)});
      }
    }
  }
  return out.size() == before;
}

void checkComplete(const Schedule& s, const OpGraph& g, std::vector<Problem>& out) {
  for (int vs = 0; vs < g.virtualStages; ++vs) {
    for (int mb = 0; mb < s.m; ++mb) {
      for (Phase phase : {Phase::Forward, Phase::InputGrad, Phase::WeightGrad}) {
        const int e = g.event(phase, vs, mb);
        if (g.eventOp[e] < 0) {
          out.push_back({ProblemKind::Missing, g.describeEvent(s, e) + " never runs"});
        }
      }
    }
  }
}

std::optional<Problem> deadlockIn(const Schedule& s, const OpGraph& g) {
  return describeDeadlock(s, g, walkInDependencyOrder(g, [](int, int32_t) {}));
}

}  // namespace

std::optional<Problem> describeDeadlock(const Schedule& s, const OpGraph& g,
                                        const std::vector<int32_t>& position) {
  std::string stuck;
  int shown = 0;
  for (int stage = 0; stage < s.p; ++stage) {
    const int32_t count = g.stageBegin[stage + 1] - g.stageBegin[stage];
    if (position[stage] == count) continue;
    if (shown++ == 4) {
      stuck += "; ...";
      break;
    }
    const Op& op = s.stages[stage][position[stage]];
    stuck += (stuck.empty() ? "" : "; ") + describeOp(s, stage, position[stage]) + " waits for " +
             g.describeEvent(s, neededEvent(s, g, stage, op));
  }
  if (stuck.empty()) return std::nullopt;
  return Problem{ProblemKind::Deadlock, "schedule deadlocks: " + stuck};
}

std::vector<Problem> structuralProblems(const Schedule& s, OpGraph* graph) {
  std::vector<Problem> out;
  if (!checkShapeAndRanges(s, out)) return capped(std::move(out));
  OpGraph g = buildOpGraph(s, &out);
  if (graph != nullptr) *graph = std::move(g);
  return capped(std::move(out));
}

std::vector<Problem> runnabilityProblems(const Schedule& s) {
  OpGraph g;
  auto problems = structuralProblems(s, &g);
  if (problems.empty()) {
    if (auto deadlock = deadlockIn(s, g)) problems.push_back(std::move(*deadlock));
  }
  return problems;
}

namespace {

// The shape, then every op once: repeated and missing ops. False when the shape is unusable
// (no op graph to speak of); else `g` is the schedule's op graph, for the checks that follow.
bool checkOpSet(const Schedule& s, OpGraph& g, std::vector<Problem>& out) {
  if (!checkShapeAndRanges(s, out)) return false;
  // Missing inputs are not reported here: each is also a missing op, reported once as such.
  std::vector<Problem> inputProblems;
  g = buildOpGraph(s, &inputProblems);
  for (auto& p : inputProblems) {
    if (p.kind == ProblemKind::Duplicate) out.push_back(std::move(p));
  }
  checkComplete(s, g, out);
  return true;
}

}  // namespace

std::vector<Problem> validate(const Schedule& s) {
  std::vector<Problem> out;
  OpGraph g;
  if (!checkOpSet(s, g, out)) return capped(std::move(out));
  // A deadlock walk over an incomplete or repeated op set would only restate those problems.
  if (out.empty()) {
    if (auto deadlock = deadlockIn(s, g)) out.push_back(std::move(*deadlock));
  }
  if (const auto bound = inFlightBound(s)) {
    const auto peaks = peakInFlight(s);
    for (int stage = 0; stage < s.p; ++stage) {
      if (peaks[stage] > *bound) {
        out.push_back({ProblemKind::ActivationMemory,
                       "stage " + std::to_string(stage) + " holds " + std::to_string(peaks[stage]) +
                           " chunk activations at once, above the " + scheduleName(s.kind) +
                           " bound of " + std::to_string(*bound)});
      }
    }
  }
  return capped(std::move(out));
}

std::vector<Problem> missingOps(const Schedule& s) {
  std::vector<Problem> out;
  OpGraph g;
  checkOpSet(s, g, out);
  return capped(std::move(out));
}

std::optional<int> inFlightBound(const Schedule& s) {
  const NamedSchedule* named = scheduleOfKind(s.kind);
  if (!named) return std::nullopt;
  return named->inFlightBound(s.p, s.m, s.v);
}

std::vector<int> peakInFlight(const Schedule& s) {
  std::vector<int> peaks;
  peaks.reserve(s.stages.size());
  for (const auto& ops : s.stages) {
    int held = 0;
    int peak = 0;
    for (const Op& op : ops) {
      if (op.kind == OpKind::F) peak = std::max(peak, ++held);
      if (op.kind == OpKind::B || op.kind == OpKind::BW) --held;
    }
    peaks.push_back(peak);
  }
  return peaks;
}

}  // namespace bubblescope::engine
