// libFuzzer target: any bytes as the message of an NVTX mark in the "bubblescope" domain (what a
// traced program's control marks say). Parsing must never crash; a refusal is one line, and a
// start it accepts asks for a window the recorder can hold (no negative steps or duration).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "agent/nvtx/control_message.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace bubblescope::agent;
  const std::string_view message(reinterpret_cast<const char*>(data), size);
  ControlCommand command;
  std::string error;
  if (!parseControlMessage(message, &command, &error)) {
    if (error.empty() || error.find('\n') != std::string::npos) __builtin_trap();
    return 0;
  }
  const WindowRequest& r = command.request;
  if (r.steps < 0 || r.durationNs < 0 || r.fromStep < -1) __builtin_trap();
  return 0;
}
