#include "agent/nvtx/control_marks.h"

#include <string>

#include "agent/core/log.h"

namespace bubblescope::agent {

void handleControlMark(std::string_view message) {
  ControlCommand cmd;
  std::string error;
  if (!parseControlMessage(message, &cmd, &error)) {
    warnOnce(Problem::ControlMessage, "%s: ignored", error.c_str());
    return;
  }
  Recorder& recorder = Recorder::instance();
  if (cmd.kind == ControlCommand::Kind::Stop) {
    recorder.stop();
  } else {
    recorder.request(cmd.request);  // already recording: nothing to do
  }
}

}  // namespace bubblescope::agent
