#include "gui/model/live_follow.h"

namespace bubblescope::gui {

bool LiveFollow::arrived(int64_t newSteps) {
  if (following_) return true;
  waiting_ += newSteps;
  return false;
}

void LiveFollow::set(const ShownView& v) {
  set_ = v;
}

void LiveFollow::observe(const ShownView& v) {
  if (following_ && !(v == set_)) following_ = false;
}

void LiveFollow::jumpBack() {
  following_ = true;
  waiting_ = 0;
}

}  // namespace bubblescope::gui
