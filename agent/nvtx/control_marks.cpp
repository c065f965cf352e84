#include "agent/nvtx/control_marks.h"

#include <charconv>
#include <cmath>

#include "agent/core/log.h"
#include "agent/core/words.h"

namespace bubblescope::agent {

bool parseControlMessage(std::string_view message, ControlCommand* out, std::string* error) {
  std::string_view rest = message;
  const std::string_view verb = nextWord(rest);
  ControlCommand cmd;
  if (verb == "stop") {
    cmd.kind = ControlCommand::Kind::Stop;
  } else if (verb == "start") {
    cmd.kind = ControlCommand::Kind::Start;
  } else {
    *error = "unknown control mark '" + std::string(message) + "' (start, stop)";
    return false;
  }
  for (std::string_view word = nextWord(rest); !word.empty(); word = nextWord(rest)) {
    const size_t eq = word.find('=');
    const std::string_view key = word.substr(0, eq);
    const std::string_view value = eq == std::string_view::npos ? "" : word.substr(eq + 1);
    int64_t n = 0;
    if (cmd.kind == ControlCommand::Kind::Start && key == "steps" && parseCount(value, &n) && n > 0) {
      cmd.request.steps = n;
    } else if (cmd.kind == ControlCommand::Kind::Start && key == "from" && parseCount(value, &n)) {
      cmd.request.fromStep = n;
    } else if (cmd.kind == ControlCommand::Kind::Start && key == "duration") {
      double seconds = 0;
      const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
      if (ec != std::errc() || ptr != value.data() + value.size() || !(seconds > 0) ||
          !std::isfinite(seconds)) {
        *error = "bad duration in control mark '" + std::string(message) + "'";
        return false;
      }
      cmd.request.durationNs = static_cast<int64_t>(seconds * 1e9);
    } else {
      *error = "bad control mark '" + std::string(message) + "' (start [steps=N [from=S]] " +
               "[duration=SECONDS], stop)";
      return false;
    }
  }
  if (cmd.request.fromStep >= 0 && cmd.request.steps == 0) {
    *error = "control mark '" + std::string(message) + "': from= needs steps=";
    return false;
  }
  cmd.request.reason = "nvtx mark: " + std::string(message);
  *out = std::move(cmd);
  return true;
}

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
