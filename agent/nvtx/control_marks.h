#pragma once
// Marks in the NVTX domain "bubblescope" control capture from inside the program, the way
// cudaProfilerStart/Stop do for nsys: "start", "start steps=N", "start steps=N from=S",
// "start duration=SECONDS [from=S]", "stop": the control socket's requests, parsed by its parser. With BUBBLESCOPE_DORMANT=1 this is how a program (or a
// test) opens a window before `bubblescope attach` exists.
#include <string>
#include <string_view>

#include "agent/core/recorder.h"

namespace bubblescope::agent {

struct ControlCommand {
  enum class Kind { Start, Stop } kind = Kind::Start;
  WindowRequest request;
};

// Pure: parses a control message. False with a one-line reason when it is not one.
bool parseControlMessage(std::string_view message, ControlCommand* out, std::string* error);

// Applies a control mark to the recorder (one warning line for a malformed one).
void handleControlMark(std::string_view message);

}  // namespace bubblescope::agent
