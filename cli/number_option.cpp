#include "cli/number_option.h"

#include <charconv>
#include <cmath>
#include <system_error>

namespace bubblescope::cli {
namespace {

// A bound as a person writes it: 0, 100, 0.5, 86400000 (the shortest form that reads back).
std::string shown(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return std::to_string(static_cast<int64_t>(v));
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, end) : std::to_string(v);
}

// What was typed, cut short when long (a pasted file must not fill the terminal).
std::string typed(std::string_view text) {
  constexpr size_t kShown = 40;
  return text.size() <= kShown ? std::string(text) : std::string(text.substr(0, kShown)) + "...";
}

std::string expected(const NumberRange& r) {
  if (r.whole) {
    return r.last == kNoLast
               ? "a whole number, " + std::to_string(r.first) + " or more"
               : "a whole number from " + std::to_string(r.first) + " to " + std::to_string(r.last);
  }
  const bool capped = std::isfinite(r.hi);
  if (r.aboveLo) {
    return "a number above " + shown(r.lo) + (capped ? " and at most " + shown(r.hi) : "");
  }
  return capped ? "a number from " + shown(r.lo) + " to " + shown(r.hi)
                : "a number, " + shown(r.lo) + " or more";
}

bool inRange(std::string_view text, const NumberRange& r) {
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  if (r.whole) {
    int64_t v = 0;
    const auto [ptr, ec] = std::from_chars(begin, end, v);
    return ec == std::errc() && ptr == end && !text.empty() && v >= r.first && v <= r.last;
  }
  double v = 0;
  const auto [ptr, ec] = std::from_chars(begin, end, v);
  return ec == std::errc() && ptr == end && !text.empty() && std::isfinite(v) &&
         (r.aboveLo ? v > r.lo : v >= r.lo) && v <= r.hi;
}

}  // namespace

NumberRange wholeFrom(int64_t first, int64_t last) {
  NumberRange r;
  r.whole = true;
  r.first = first;
  r.last = last;
  return r;
}

NumberRange numberFrom(double lo, double hi) {
  NumberRange r;
  r.lo = lo;
  r.hi = hi;
  return r;
}

NumberRange numberAbove(double lo, double hi) {
  NumberRange r = numberFrom(lo, hi);
  r.aboveLo = true;
  return r;
}

std::string numberProblem(std::string_view text, const NumberRange& range) {
  if (inRange(text, range)) return "";
  return "must be " + expected(range) + " (got " + typed(text) + ")";
}

std::string rangeHint(const NumberRange& r) {
  if (r.whole) {
    return r.last == kNoLast ? ">=" + std::to_string(r.first)
                             : std::to_string(r.first) + ".." + std::to_string(r.last);
  }
  if (!std::isfinite(r.hi)) return (r.aboveLo ? ">" : ">=") + shown(r.lo);
  return (r.aboveLo ? "(" : "[") + shown(r.lo) + ", " + shown(r.hi) + "]";
}

}  // namespace bubblescope::cli
