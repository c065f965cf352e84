#pragma once
// Lists a pass over a run's steps keeps from one step to the next (their room reused, not
// allocated anew) are worth keeping while the steps are small: at 10^6 steps of two stages their
// allocations were a tenth of the analysis (issue 28). A step of thousands of stages allocates
// little for the work it brings, and room one phase of it kept lay under the peak of the next
// (10,000 stages: the view's lookups, the blame walk's lists and a stage's replay, 12 MB).
#include <cstddef>

namespace bubblescope::analysis {

// A step of more ops than this lets go of each phase's lists as the phase ends.
inline constexpr size_t kRoomKeptOps = size_t{1} << 14;

// `lists` as made anew when the step that used them holds more than kRoomKeptOps ops.
template <class Lists>
void letGoIfLarge(Lists& lists, size_t opsInStep) {
  if (opsInStep > kRoomKeptOps) lists = Lists{};
}

}  // namespace bubblescope::analysis
