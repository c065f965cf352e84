#include "cli/shown_steps.h"

#include <algorithm>

namespace bubblescope::cli {

size_t wholeSteps(int64_t keepNs, int64_t periodNs) {
  if (periodNs <= 0 || keepNs <= 0) return 0;
  return static_cast<size_t>(std::max<int64_t>(1, keepNs / periodNs - 3));
}

void ShownSteps::add(const std::vector<int64_t>& finished) {
  for (int64_t n : finished) {
    if (steps_.empty() || n > steps_.back()) steps_.push_back(n);
  }
}

void ShownSteps::bound(size_t capacity) {
  capacity = std::max<size_t>(capacity, 1);
  while (steps_.size() > capacity) steps_.pop_front();
}

void ShownSteps::dropBefore(int64_t step) {
  while (!steps_.empty() && steps_.front() < step) steps_.pop_front();
}

}  // namespace bubblescope::cli
