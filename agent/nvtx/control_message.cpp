#include "agent/nvtx/control_message.h"

#include "agent/control/protocol.h"
#include "agent/control/window_request.h"

namespace bubblescope::agent {

bool parseControlMessage(std::string_view message, ControlCommand* out, std::string* error) {
  // The control socket's grammar and parser: a mark means what the same request means there.
  control::Command command;
  std::string why;
  if (!control::parseCommand(message, &command, &why)) {
    *error = "control mark '" + control::escapeValue(message.substr(0, 64)) + "': " + why;
    return false;
  }
  ControlCommand cmd;
  switch (command.verb) {
    case control::Command::Verb::Stop:
      cmd.kind = ControlCommand::Kind::Stop;
      break;
    case control::Command::Verb::Start:
      cmd.kind = ControlCommand::Kind::Start;
      cmd.request = windowRequestFor(command, "nvtx mark: " + std::string(message));
      break;
    case control::Command::Verb::Status:
      *error = "control mark 'status': status is asked over the control socket (bubblescope ps)";
      return false;
    case control::Command::Verb::Hang:
      *error =
          "control mark 'hang': where a job waits is asked over the control socket "
          "(bubblescope hang --all)";
      return false;
    case control::Command::Verb::Watch:
    case control::Command::Verb::Snapshot:
      // A memory window lives only while a watcher reads it through the socket.
      *error = "control mark '" + control::escapeValue(message.substr(0, 16)) +
               "': a memory window is asked for over the control socket (bubblescope watch)";
      return false;
  }
  *out = std::move(cmd);
  return true;
}

}  // namespace bubblescope::agent
