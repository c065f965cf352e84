#pragma once
// What an NVTX control mark in the domain "bubblescope" asks for: "start", "start steps=N",
// "start steps=N from=S", "start duration=SECONDS [from=S]", "stop": the control socket's
// requests, parsed by its parser. Pure (the fuzzer and the unit tests call it without an agent).
#include <string>
#include <string_view>

#include "agent/core/recorder.h"

namespace bubblescope::agent {

struct ControlCommand {
  enum class Kind { Start, Stop } kind = Kind::Start;
  WindowRequest request;
};

// False with a one-line reason when `message` is not a control request a mark may make.
bool parseControlMessage(std::string_view message, ControlCommand* out, std::string* error);

}  // namespace bubblescope::agent
