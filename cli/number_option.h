#pragma once
// Numbers on the command line are numbers: every numeric option is checked by this one rule
// before CLI11 converts it, so nan and inf (which compare false with every bound and so passed),
// 1e400, 1.5 where a count belongs and values outside the option's range are refused in one
// sentence ("must be a number above 0 (got nan)") rather than accepted, or refused with a bound
// of DBL_MAX in 300 digits. Pure: command_line.cpp wraps it in a CLI11 validator.
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace bubblescope::cli {

struct NumberRange {
  bool whole = false;  // a count or an id: digits only, from `first` to `last`
  int64_t first = 0, last = 0;
  double lo = 0;  // otherwise a finite number from `lo` (above it when `aboveLo`) to `hi`
  double hi = std::numeric_limits<double>::infinity();
  bool aboveLo = false;
};

inline constexpr int64_t kNoLast = INT64_MAX;  // a whole number with no upper bound but int64's

// Whole numbers from `first` to `last`.
NumberRange wholeFrom(int64_t first, int64_t last = kNoLast);
// Finite numbers from `lo` to `hi`.
NumberRange numberFrom(double lo, double hi = std::numeric_limits<double>::infinity());
// Finite numbers above `lo`, up to `hi`.
NumberRange numberAbove(double lo, double hi = std::numeric_limits<double>::infinity());

// "" when `text` is a number in `range`; otherwise what is wrong, as the rest of a sentence that
// names the option: "must be a whole number from 1 to 256 (got 1.5)".
std::string numberProblem(std::string_view text, const NumberRange& range);
// The range in a few characters, for the option's help: "1..256", "[0, 100]", ">0", ">=0".
std::string rangeHint(const NumberRange& range);

}  // namespace bubblescope::cli
