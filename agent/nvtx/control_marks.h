#pragma once
// Marks in the NVTX domain "bubblescope" control capture from inside the program, the way
// cudaProfilerStart/Stop do for nsys (control_message.h says what they may ask). With
// BUBBLESCOPE_DORMANT=1 this is how a program (or a test) opens a window before `bubblescope
// attach` exists.
#include <string_view>

#include "agent/nvtx/control_message.h"

namespace bubblescope::agent {

// Applies a control mark to the recorder (one warning line for a malformed one).
void handleControlMark(std::string_view message);

}  // namespace bubblescope::agent
