#pragma once
// Whether the viewer on a running job (view --attach) follows its newest step or stays where the
// user went. It follows until what is shown differs from what it set last (the user zoomed,
// panned or picked another step), then counts the steps that come meanwhile until the user jumps
// back. Pure: no window, unit-tested.
#include <cstdint>

#include "traces/model/time.h"

namespace bubblescope::gui {

// What is shown: the selected step's number and the view range.
struct ShownView {
  int64_t step = -1;
  TimeNs start = 0, end = 0;
  bool operator==(const ShownView&) const = default;
};

class LiveFollow {
 public:
  // A newer window with `newSteps` more steps arrived. True: show it now (following); false: the
  // user looks elsewhere, the steps are counted in waiting().
  bool arrived(int64_t newSteps);
  // The follower showed the newest step this way.
  void set(const ShownView& v);
  // What a frame shows: anything but what was set means the user navigated away.
  void observe(const ShownView& v);
  // Back to the newest step (the user asked): following again, nothing waiting.
  void jumpBack();

  bool following() const { return following_; }
  int64_t waiting() const { return waiting_; }

 private:
  bool following_ = true;
  ShownView set_;
  int64_t waiting_ = 0;
};

}  // namespace bubblescope::gui
