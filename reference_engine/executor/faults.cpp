#include "reference_engine/executor/faults.h"

#include <charconv>
#include <cmath>
#include <set>
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

// One flag's parse: every error names the flag, what was typed and the expected form.
class FlagParser {
 public:
  FlagParser(std::string_view flag, std::string_view text, std::string_view form)
      : flag_(flag), text_(text), form_(form), fields_(splitFields(text)) {}

  void requireFieldCount(size_t minimum, size_t maximum) const {
    if (fields_.size() < minimum || fields_.size() > maximum)
      fail("expected " + std::string(form_));
  }
  size_t fieldCount() const { return fields_.size(); }

  int integer(size_t index, const char* what) const {
    std::string_view f = fields_[index];
    int value = 0;
    auto [end, ec] = std::from_chars(f.data(), f.data() + f.size(), value);
    if (f.empty() || ec != std::errc() || end != f.data() + f.size()) {
      fail(std::string(what) + " '" + std::string(f) + "' is not an integer; expected " +
           std::string(form_));
    }
    return value;
  }

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

  [[noreturn]] void fail(const std::string& problem) const {
    throw FaultSpecError(std::string(flag_) + " '" + std::string(text_) + "': " + problem);
  }

 private:
  std::string_view flag_, text_, form_;
  std::vector<std::string_view> fields_;
};

}  // namespace

double Faults::slowFactor(int stage) const {
  for (const auto& s : slowStages) {
    if (s.stage == stage) return s.factor;
  }
  return 1.0;
}

double Faults::commDelayMs(int stage) const {
  for (const auto& d : commDelays) {
    if (d.stage == stage) return d.ms;
  }
  return 0.0;
}

// Beyond these a fault is a typo, and its nanoseconds would overflow (1e300 ms slept forever).
constexpr double kMaxFactor = 1000;
constexpr double kMaxFaultMs = 86'400'000;

SlowStage parseSlowStage(std::string_view text, const FaultBounds& bounds) {
  FlagParser in("--slow-stage", text, "STAGE:FACTOR, e.g. 2:1.5");
  in.requireFieldCount(2, 2);
  SlowStage s;
  s.stage = in.inRange(in.integer(0, "stage"), bounds.p, "stage", "p");
  s.factor = in.number(1, "factor");
  if (s.factor <= 0 || s.factor > kMaxFactor) in.fail("the factor must be above 0, at most 1000");
  return s;
}

Stall parseStall(std::string_view flag, std::string_view text, const FaultBounds& bounds) {
  FlagParser in(flag, text, "STAGE:MB:MS[:STEP], e.g. 1:5:20");
  in.requireFieldCount(3, 4);
  Stall s;
  s.stage = in.inRange(in.integer(0, "stage"), bounds.p, "stage", "p");
  s.mb = in.inRange(in.integer(1, "microbatch"), bounds.m, "microbatch", "m");
  s.ms = in.number(2, "duration");
  if (s.ms <= 0 || s.ms > kMaxFaultMs) in.fail("the duration must be above 0 ms, at most a day");
  if (in.fieldCount() == 4)
    s.step = in.inRange(in.integer(3, "step"), bounds.steps, "step", "steps");
  return s;
}

CommDelay parseCommDelay(std::string_view text, const FaultBounds& bounds) {
  FlagParser in("--comm-delay", text, "STAGE:MS, e.g. 1:5");
  in.requireFieldCount(2, 2);
  CommDelay d;
  d.stage = in.inRange(in.integer(0, "stage"), bounds.p, "stage", "p");
  d.ms = in.number(1, "delay");
  if (d.ms <= 0 || d.ms > kMaxFaultMs) in.fail("the delay must be above 0 ms, at most a day");
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

Faults parseFaults(const FaultFlags& flags, const FaultBounds& bounds) {
  Faults f;
  std::set<int> seen;
  for (const auto& text : flags.slowStage) {
    f.slowStages.push_back(parseSlowStage(text, bounds));
    if (!seen.insert(f.slowStages.back().stage).second) {
      throw FaultSpecError("--slow-stage '" + text + "': stage " +
                           std::to_string(f.slowStages.back().stage) + " is given twice");
    }
  }
  for (const auto& text : flags.stall) f.stalls.push_back(parseStall("--stall", text, bounds));
  for (const auto& text : flags.hostStall) {
    f.hostStalls.push_back(parseStall("--host-stall", text, bounds));
  }
  seen.clear();
  for (const auto& text : flags.commDelay) {
    f.commDelays.push_back(parseCommDelay(text, bounds));
    if (!seen.insert(f.commDelays.back().stage).second) {
      throw FaultSpecError("--comm-delay '" + text + "': stage " +
                           std::to_string(f.commDelays.back().stage) + " is given twice");
    }
  }
  for (const auto& text : flags.crash) f.crashes.push_back(parseCrash(text, bounds));
  for (const auto& text : flags.mismatch) f.mismatches.push_back(parseMismatch(text, bounds));
  for (const auto& text : flags.hang) f.hangs.push_back(parseHang(text, bounds));
  if (!std::isfinite(flags.jitterPct) || flags.jitterPct < 0 || flags.jitterPct >= 100) {
    std::ostringstream typed;
    typed << flags.jitterPct;
    throw FaultSpecError("--jitter " + typed.str() + ": the jitter is a percentage in [0, 100)");
  }
  f.jitterPct = flags.jitterPct;
  return f;
}

}  // namespace bubblescope::engine
