#include "reference_engine/executor/faults.h"

#include <charconv>
#include <cmath>
#include <sstream>

namespace bubblescope::engine {
namespace {

std::vector<std::string_view> splitFields(std::string_view text) {
  std::vector<std::string_view> fields;
  size_t begin = 0;
  while (true) {
    size_t colon = text.find(':', begin);
    fields.push_back(text.substr(begin, colon - begin));
    if (colon == std::string_view::npos) return fields;
    begin = colon + 1;
  }
}

// One flag's parse: every error names the flag, what was typed and the expected form. A flag that
// `takesSteps` may end in `@FROM[-TO]`, split off before the fields.
class FlagParser {
 public:
  FlagParser(std::string_view flag, std::string_view text, std::string_view form,
             bool takesSteps = false)
      : flag_(flag), text_(text), form_(form) {
    std::string_view fields = text;
    if (const size_t at = text.find('@'); takesSteps && at != std::string_view::npos) {
      fields = text.substr(0, at);
      steps_ = text.substr(at + 1);
    }
    fields_ = splitFields(fields);
  }

  void requireFieldCount(size_t minimum, size_t maximum) const {
    if (fields_.size() < minimum || fields_.size() > maximum)
      fail("expected " + std::string(form_));
  }
  size_t fieldCount() const { return fields_.size(); }
  bool hasSteps() const { return steps_.has_value(); }

  int integer(size_t index, const char* what) const { return integerOf(fields_[index], what); }

  double number(size_t index, const char* what) const {
    std::string_view f = fields_[index];
    double value = 0;
    auto [end, ec] = std::from_chars(f.data(), f.data() + f.size(), value);
    if (f.empty() || ec != std::errc() || end != f.data() + f.size() || !std::isfinite(value)) {
      fail(std::string(what) + " '" + std::string(f) + "' is not a number; expected " +
           std::string(form_));
    }
    return value;
  }

  int inRange(int value, int limit, const char* what, const char* limitName) const {
    if (value < 0 || value >= limit) {
      fail(std::string(what) + " " + std::to_string(value) + " is out of range (" + limitName +
           "=" + std::to_string(limit) + ", so 0.." + std::to_string(limit - 1) + ")");
    }
    return value;
  }

  // The `@FROM[-TO]` suffix, if typed: steps FROM..TO-1 (TO exclusive), or FROM to the run's end.
  std::optional<StepRange> stepRange(int steps) const {
    if (!steps_) return std::nullopt;
    const std::string_view s = *steps_;
    // From the second character: a leading '-' is a negative FROM, reported as out of range.
    const size_t dash = s.find('-', 1);
    StepRange r;
    r.from = inRange(integerOf(s.substr(0, dash), "first step"), steps, "first step", "steps");
    if (dash == std::string_view::npos) return r;
    const int to = integerOf(s.substr(dash + 1), "end step");
    if (to <= r.from) {
      fail("the step range " + std::string(s) +
           " is empty: TO is exclusive, so it must be above FROM");
    }
    if (to > steps) {
      fail("end step " + std::to_string(to) + " is beyond the run (steps=" + std::to_string(steps) +
           "; TO is exclusive, so at most " + std::to_string(steps) + ")");
    }
    r.to = to;
    return r;
  }

  [[noreturn]] void fail(const std::string& problem) const {
    throw FaultSpecError(std::string(flag_) + " '" + std::string(text_) + "': " + problem);
  }

 private:
  int integerOf(std::string_view f, const char* what) const {
    int value = 0;
    auto [end, ec] = std::from_chars(f.data(), f.data() + f.size(), value);
    if (f.empty() || ec != std::errc() || end != f.data() + f.size()) {
      fail(std::string(what) + " '" + std::string(f) + "' is not an integer; expected " +
           std::string(form_));
    }
    return value;
  }

  std::string_view flag_, text_, form_;
  std::vector<std::string_view> fields_;
  std::optional<std::string_view> steps_;  // after the '@'
};

std::string describe(const std::optional<StepRange>& r) {
  if (!r) return "every step";
  if (!r->to) return "steps " + std::to_string(r->from) + " on";
  return "steps " + std::to_string(r->from) + ".." + std::to_string(*r->to - 1);
}

// One stage may be given several times when its step ranges do not overlap: then each step has
// at most one factor (or delay) for it, and the per-step lookup takes the first that matches.
template <class Fault>
void rejectOverlaps(const std::string& flag, const std::vector<std::string>& texts,
                    const std::vector<Fault>& faults) {
  for (size_t i = 0; i < faults.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      const Fault& a = faults[j];
      const Fault& b = faults[i];
      if (a.stage != b.stage) continue;
      if (a.steps && b.steps && !a.steps->overlaps(*b.steps)) continue;
      throw FaultSpecError(flag + " '" + texts[i] + "': stage " + std::to_string(b.stage) +
                           " is given twice for the same steps ('" + texts[j] + "' covers " +
                           describe(a.steps) + "); a stage may repeat only with @FROM-TO " +
                           "ranges that do not overlap");
    }
  }
}

}  // namespace

bool StepRange::overlaps(const StepRange& other) const {
  const bool endsBefore = to && *to <= other.from;
  const bool startsAfter = other.to && *other.to <= from;
  return !endsBefore && !startsAfter;
}

bool Stall::hits(int atStage, int atStep, int atMb) const {
  return stage == atStage && mb == atMb && (!step || *step == atStep) && inSteps(steps, atStep);
}

double Faults::slowFactor(int stage, int step) const {
  for (const auto& s : slowStages) {
    if (s.stage == stage && inSteps(s.steps, step)) return s.factor;
  }
  return 1.0;
}

double Faults::commDelayMs(int stage, int step) const {
  for (const auto& d : commDelays) {
    if (d.stage == stage && inSteps(d.steps, step)) return d.ms;
  }
  return 0.0;
}

double Faults::lateStartSeconds(int stage) const {
  for (const auto& l : lateStarts) {
    if (l.stage == stage) return l.seconds;
  }
  return 0.0;
}

// Beyond these a fault is a typo, and its nanoseconds would overflow (1e300 ms slept forever).
constexpr double kMaxFactor = 1000;
constexpr double kMaxFaultMs = 86'400'000;

SlowStage parseSlowStage(std::string_view text, const FaultBounds& bounds) {
  FlagParser in("--slow-stage", text, "STAGE:FACTOR[@FROM[-TO]], e.g. 2:1.5 or 2:1.5@4-8", true);
  in.requireFieldCount(2, 2);
  SlowStage s;
  s.stage = in.inRange(in.integer(0, "stage"), bounds.p, "stage", "p");
  s.factor = in.number(1, "factor");
  if (s.factor <= 0 || s.factor > kMaxFactor) in.fail("the factor must be above 0, at most 1000");
  s.steps = in.stepRange(bounds.steps);
  return s;
}

Stall parseStall(std::string_view flag, std::string_view text, const FaultBounds& bounds) {
  FlagParser in(flag, text, "STAGE:MB:MS[:STEP] or STAGE:MB:MS@FROM[-TO], e.g. 1:5:20 or 1:5:20@4",
                true);
  in.requireFieldCount(3, 4);
  Stall s;
  s.stage = in.inRange(in.integer(0, "stage"), bounds.p, "stage", "p");
  s.mb = in.inRange(in.integer(1, "microbatch"), bounds.m, "microbatch", "m");
  s.ms = in.number(2, "duration");
  if (s.ms <= 0 || s.ms > kMaxFaultMs) in.fail("the duration must be above 0 ms, at most a day");
  if (in.fieldCount() == 4) {
    if (in.hasSteps()) in.fail("give either :STEP (one step) or @FROM[-TO] (a range), not both");
    s.step = in.inRange(in.integer(3, "step"), bounds.steps, "step", "steps");
  }
  s.steps = in.stepRange(bounds.steps);
  return s;
}

CommDelay parseCommDelay(std::string_view text, const FaultBounds& bounds) {
  FlagParser in("--comm-delay", text, "STAGE:MS[@FROM[-TO]], e.g. 1:5 or 1:5@4-8", true);
  in.requireFieldCount(2, 2);
  CommDelay d;
  d.stage = in.inRange(in.integer(0, "stage"), bounds.p, "stage", "p");
  d.ms = in.number(1, "delay");
  if (d.ms <= 0 || d.ms > kMaxFaultMs) in.fail("the delay must be above 0 ms, at most a day");
  d.steps = in.stepRange(bounds.steps);
  return d;
}

// STAGE:MB[:STEP]: the op where --crash and --hang strike (step 0 unless given).
template <class Place>
Place parseOpPlace(std::string_view flag, std::string_view text, const FaultBounds& bounds) {
  FlagParser in(flag, text, "STAGE:MB[:STEP], e.g. 2:3");
  in.requireFieldCount(2, 3);
  Place p;
  p.stage = in.inRange(in.integer(0, "stage"), bounds.p, "stage", "p");
  p.mb = in.inRange(in.integer(1, "microbatch"), bounds.m, "microbatch", "m");
  if (in.fieldCount() == 3)
    p.step = in.inRange(in.integer(2, "step"), bounds.steps, "step", "steps");
  return p;
}

Crash parseCrash(std::string_view text, const FaultBounds& bounds) {
  return parseOpPlace<Crash>("--crash", text, bounds);
}

Mismatch parseMismatch(std::string_view text, const FaultBounds& bounds) {
  FlagParser in("--mismatch", text, "STAGE:MB, e.g. 1:4");
  in.requireFieldCount(2, 2);
  Mismatch mm;
  mm.stage = in.inRange(in.integer(0, "stage"), bounds.p, "stage", "p");
  mm.mb = in.inRange(in.integer(1, "microbatch"), bounds.m, "microbatch", "m");
  return mm;
}

Hang parseHang(std::string_view text, const FaultBounds& bounds) {
  return parseOpPlace<Hang>("--hang", text, bounds);
}

LateStart parseLateStart(std::string_view text, const FaultBounds& bounds) {
  FlagParser in("--late-start", text, "STAGE:SECONDS, e.g. 3:4");
  in.requireFieldCount(2, 2);
  LateStart l;
  l.stage = in.inRange(in.integer(0, "stage"), bounds.p, "stage", "p");
  l.seconds = in.number(1, "delay");
  if (l.seconds <= 0 || l.seconds > kMaxFaultMs / 1000) {
    in.fail("the delay must be above 0 s, at most a day");
  }
  return l;
}

Faults parseFaults(const FaultFlags& flags, const FaultBounds& bounds) {
  Faults f;
  for (const auto& text : flags.slowStage) f.slowStages.push_back(parseSlowStage(text, bounds));
  rejectOverlaps("--slow-stage", flags.slowStage, f.slowStages);
  for (const auto& text : flags.stall) f.stalls.push_back(parseStall("--stall", text, bounds));
  for (const auto& text : flags.hostStall) {
    f.hostStalls.push_back(parseStall("--host-stall", text, bounds));
  }
  for (const auto& text : flags.commDelay) f.commDelays.push_back(parseCommDelay(text, bounds));
  rejectOverlaps("--comm-delay", flags.commDelay, f.commDelays);
  for (const auto& text : flags.crash) f.crashes.push_back(parseCrash(text, bounds));
  for (const auto& text : flags.mismatch) f.mismatches.push_back(parseMismatch(text, bounds));
  for (const auto& text : flags.hang) f.hangs.push_back(parseHang(text, bounds));
  for (const auto& text : flags.lateStart) {
    const LateStart l = parseLateStart(text, bounds);
    if (f.lateStartSeconds(l.stage) > 0) {
      throw FaultSpecError("--late-start " + text + ": stage " + std::to_string(l.stage) +
                           " is given twice");
    }
    f.lateStarts.push_back(l);
  }
  if (!std::isfinite(flags.jitterPct) || flags.jitterPct < 0 || flags.jitterPct >= 100) {
    std::ostringstream typed;
    typed << flags.jitterPct;
    throw FaultSpecError("--jitter " + typed.str() + ": the jitter is a percentage in [0, 100)");
  }
  f.jitterPct = flags.jitterPct;
  return f;
}

}  // namespace bubblescope::engine
