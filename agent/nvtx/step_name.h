#pragma once
// Step boundaries: a range named "step N" opens step N (the bubblescope naming convention,
// docs/analysis.md). Capture windows of N steps count these.
#include <cstdint>
#include <string_view>

namespace bubblescope::agent {

// N for "step N" (N decimal, optionally followed by a space and more text), else -1.
inline int64_t parseStepName(std::string_view name) {
  constexpr std::string_view kPrefix = "step ";
  if (name.size() <= kPrefix.size() || name.substr(0, kPrefix.size()) != kPrefix) return -1;
  int64_t step = 0;
  size_t i = kPrefix.size();
  for (; i < name.size() && name[i] != ' '; ++i) {
    const char c = name[i];
    if (c < '0' || c > '9' || i - kPrefix.size() >= 18) return -1;
    step = step * 10 + (c - '0');
  }
  return i == kPrefix.size() ? -1 : step;
}

}  // namespace bubblescope::agent
