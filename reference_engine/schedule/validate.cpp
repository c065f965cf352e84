#include "reference_engine/schedule/validate.h"

#include <algorithm>

#include "reference_engine/schedule/dependencies.h"
#include "reference_engine/schedule/dependency_walk.h"

namespace bubblescope::engine {
namespace {

class ProblemList {
 public:
  void add(ProblemKind kind, std::string message) {
    if (problems_.size() < kMaxProblems) {
      problems_.push_back({kind, std::move(message)});
    } else {
      ++leftOut_;
    }
  }
  bool empty() const { return problems_.empty(); }
  std::vector<Problem> take() && {
    if (leftOut_ > 0) {
      problems_.back().message += " (and " + std::to_string(leftOut_) + " more problems)";
    }
    return std::move(problems_);
  }

 private:
  std::vector<Problem> problems_;
  size_t leftOut_ = 0;
};

void checkShapeAndRanges(const Schedule& s, ProblemList& out) {
  if (s.p < 1 || s.m < 1 || s.v < 1) {
    out.add(ProblemKind::Shape, "schedule needs p, m and v of at least 1 (p=" + std::to_string(s.p) +
                                    ", m=" + std::to_string(s.m) + ", v=" + std::to_string(s.v) +
                                    ")");
    return;
  }
  if (s.layout == ChunkLayout::V && s.v != 2) {
    out.add(ProblemKind::Shape,
            "a V layout has exactly 2 chunks per stage (v=" + std::to_string(s.v) + ")");
  }
  if (static_cast<int>(s.stages.size()) != s.p) {
    out.add(ProblemKind::Shape, "schedule has " + std::to_string(s.stages.size()) +
                                    " per-stage orders for p=" + std::to_string(s.p) + " stages");
    return;
  }
  for (int stage = 0; stage < s.p; ++stage) {
    const auto& ops = s.stages[stage];
    for (size_t i = 0; i < ops.size(); ++i) {
      if (ops[i].mb < 0 || ops[i].mb >= s.m) {
        out.add(ProblemKind::OutOfRange, describeOp(s, stage, static_cast<int>(i)) +
                                             " names microbatch " + std::to_string(ops[i].mb) +
                                             " of m=" + std::to_string(s.m));
      } else if (ops[i].chunk < 0 || ops[i].chunk >= s.v) {
        out.add(ProblemKind::OutOfRange, describeOp(s, stage, static_cast<int>(i)) +
                                             " names chunk " + std::to_string(ops[i].chunk) +
                                             " of v=" + std::to_string(s.v));
      }
    }
  }
}

// Which op ran each event, as (stage << 32 | index) + 1, 0 when none: for duplicates and for the
// completeness check.
std::vector<int64_t> checkDuplicates(const Schedule& s, const OpGraph& g, ProblemList& out) {
  std::vector<int64_t> ranBy(g.events(), 0);
  const auto claim = [&](int event, int stage, int index) {
    const int64_t who = (static_cast<int64_t>(stage) << 32 | index) + 1;
    if (ranBy[event] != 0) {
      const int64_t prev = ranBy[event] - 1;
      out.add(ProblemKind::Duplicate,
              describeOp(s, stage, index) + " repeats " + g.describeEvent(s, event) +
                  ", already run by " +
                  describeOp(s, static_cast<int>(prev >> 32), static_cast<int>(prev & 0xffffffff)));
      return;
    }
    ranBy[event] = who;
  };
  for (int stage = 0; stage < s.p; ++stage) {
    const auto& ops = s.stages[stage];
    for (size_t i = 0; i < ops.size(); ++i) {
      const int idx = static_cast<int>(i);
      claim(producedEvent(s, g, stage, ops[i]), stage, idx);
      if (ops[i].kind == OpKind::BW) {
        const int vs = s.virtualStage(stage, ops[i].chunk);
        claim(g.event(Phase::WeightGrad, vs, ops[i].mb), stage, idx);
      }
    }
  }
  return ranBy;
}

void checkInputsPresent(const Schedule& s, const OpGraph& g, const std::vector<int64_t>& ranBy,
                        ProblemList& out) {
  for (int stage = 0; stage < s.p; ++stage) {
    for (int32_t i = g.stageBegin[stage]; i < g.stageBegin[stage + 1]; ++i) {
      if (g.needs[i] >= 0 && ranBy[g.needs[i]] == 0) {
        const int index = i - g.stageBegin[stage];
        out.add(ProblemKind::MissingInput, describeOp(s, stage, index) + " waits for " +
                                               g.describeEvent(s, g.needs[i]) +
                                               ", which no stage runs");
      }
    }
  }
}

void checkComplete(const Schedule& s, const OpGraph& g, const std::vector<int64_t>& ranBy,
                   ProblemList& out) {
  for (int vs = 0; vs < g.virtualStages; ++vs) {
    for (int mb = 0; mb < s.m; ++mb) {
      for (Phase phase : {Phase::Forward, Phase::InputGrad, Phase::WeightGrad}) {
        const int e = g.event(phase, vs, mb);
        if (ranBy[e] == 0) {
          out.add(ProblemKind::Missing, g.describeEvent(s, e) + " never runs");
        }
      }
    }
  }
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
    const int32_t i = g.stageBegin[stage] + position[stage];
    stuck += (stuck.empty() ? "" : "; ") + describeOp(s, stage, position[stage]) + " waits for " +
             g.describeEvent(s, g.needs[i]);
  }
  if (stuck.empty()) return std::nullopt;
  return Problem{ProblemKind::Deadlock, "schedule deadlocks: " + stuck};
}

namespace {
std::optional<Problem> deadlockIn(const Schedule& s, const OpGraph& g) {
  return describeDeadlock(s, g, walkInDependencyOrder(g, [](int, int32_t) {}));
}
}  // namespace

std::vector<Problem> structuralProblems(const Schedule& s) {
  ProblemList out;
  checkShapeAndRanges(s, out);
  if (!out.empty()) return std::move(out).take();
  const OpGraph g = buildOpGraph(s);
  const auto ranBy = checkDuplicates(s, g, out);
  checkInputsPresent(s, g, ranBy, out);
  return std::move(out).take();
}

std::vector<Problem> runnabilityProblems(const Schedule& s) {
  auto problems = structuralProblems(s);
  if (problems.empty()) {
    if (auto deadlock = deadlockIn(s, buildOpGraph(s))) problems.push_back(std::move(*deadlock));
  }
  return problems;
}

std::vector<Problem> validate(const Schedule& s) {
  ProblemList out;
  checkShapeAndRanges(s, out);
  if (!out.empty()) return std::move(out).take();
  const OpGraph g = buildOpGraph(s);
  const auto ranBy = checkDuplicates(s, g, out);
  // A complete op set has every input present; a missing op is reported once, as missing.
  checkComplete(s, g, ranBy, out);
  // A deadlock walk over an incomplete or repeated op set would only restate those problems.
  if (out.empty()) {
    if (auto deadlock = deadlockIn(s, g)) out.add(deadlock->kind, std::move(deadlock->message));
  }
  if (const auto bound = inFlightBound(s)) {
    const auto peaks = peakInFlight(s);
    for (int stage = 0; stage < s.p; ++stage) {
      if (peaks[stage] > *bound) {
        out.add(ProblemKind::ActivationMemory,
                "stage " + std::to_string(stage) + " holds " + std::to_string(peaks[stage]) +
                    " chunk activations at once, above the " + scheduleName(s.kind) + " bound of " +
                    std::to_string(*bound));
      }
    }
  }
  return std::move(out).take();
}

std::optional<int> inFlightBound(const Schedule& s) {
  const int p = s.p;
  const int m = s.m;
  switch (s.kind) {
    case ScheduleKind::GPipe: return m;
    case ScheduleKind::OneF1B:
    case ScheduleKind::ZbH1: return std::min(p, m);
    case ScheduleKind::ZbH2: return std::min(2 * p - 1, m);
    case ScheduleKind::Interleaved1F1B: return std::min(2 * (p - 1) + (s.v - 1) * p + 1, m * s.v);
    case ScheduleKind::ZbV: return 2 * std::min(p, m);
    case ScheduleKind::Custom: return std::nullopt;
  }
  return std::nullopt;
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
