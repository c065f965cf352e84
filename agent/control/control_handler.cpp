#include "agent/control/control_handler.h"

#include "agent/control/window_request.h"
#include "agent/core/clock.h"

#include "bubblescope/version.h"

namespace bubblescope::agent {
namespace {

using control::Command;
using control::Reply;

Reply refusal(std::string message) {
  Reply r;
  r.ok = false;
  r.fields["message"] = std::move(message);
  return r;
}

// capture_windows.reason: what was asked, in the protocol's words ("attach steps=2 from=18").
std::string reasonOf(const Command& c) {
  std::string line = control::formatCommand(c);
  line.pop_back();                   // the LF
  return "attach" + line.substr(5);  // "start ..." → "attach ..."
}

}  // namespace

Reply ControlHandler::handle(std::string_view line, int64_t nowNs, std::string* payload) {
  Reply r = handleCommand(line, nowNs, payload);
  // A request taken as the process began to exit finds its window or writer going: say why.
  if (!r.ok && recorder_.exiting()) return refusal(std::string(control::kExitingMessage));
  return r;
}

Reply ControlHandler::handleCommand(std::string_view line, int64_t nowNs, std::string* payload) {
  Command command;
  std::string error;
  if (!control::parseCommand(line, &command, &error)) return refusal(error);
  tick(nowNs);
  switch (command.verb) {
    case Command::Verb::Status:
      return status(nowNs);
    case Command::Verb::Start:
      return start(command);
    case Command::Verb::Stop:
      return stop();
    case Command::Verb::Hang:
      return hang(nowNs);
    case Command::Verb::Watch:
      return watch(command, nowNs);
    case Command::Verb::Snapshot:
      if (payload == nullptr) return refusal("snapshot needs a connection that takes its bytes");
      return snapshot(payload);
  }
  return refusal("unknown request");
}

void ControlHandler::addFile(Reply& r) const {
  const std::string written = fileLookup_ != nullptr ? fileLookup_() : std::string();
  r.fields["file_written"] = written.empty() ? "0" : "1";
  if (!written.empty()) {
    r.fields["file"] = written;
  } else if (!identity_.outputDir.empty()) {
    r.fields["file"] = identity_.outputDir + "/" + identity_.expectedFile;
  }
}

bool ControlHandler::armedNow(size_t windowCount) const {
  return armedIndex_ >= 0 && static_cast<int64_t>(windowCount) == armedIndex_ &&
         !recorder_.disabled();
}

void ControlHandler::addWindow(Reply& r) {
  const std::vector<WindowRecord> windows = recorder_.windows();
  if (armedNow(windows.size())) {
    r.fields["window"] = "armed";
    r.fields["window_index"] = std::to_string(armedIndex_);
    return;
  }
  if (windows.empty()) {
    r.fields["window"] = "none";
    return;
  }
  const WindowRecord& w = windows.back();
  r.fields["window"] = w.endNs == 0 ? "open" : "closed";
  r.fields["window_index"] = std::to_string(windows.size() - 1);
  r.fields["window_start"] = std::to_string(w.startNs);
  if (w.endNs != 0) r.fields["window_end"] = std::to_string(w.endNs);
  r.fields["window_reason"] = w.reason;
}

Reply ControlHandler::status(int64_t nowNs) {
  Reply r;
  r.ok = true;
  auto& f = r.fields;
  f["protocol"] = std::to_string(control::kProtocolVersion);
  f["version"] = BUBBLESCOPE_VERSION;
  f["pid"] = std::to_string(identity_.pid);
  f["rank"] = std::to_string(identity_.rank);
  f["local_rank"] = std::to_string(identity_.localRank);
  f["world_size"] = std::to_string(identity_.worldSize);
  f["run_id"] = identity_.runId;
  f["command"] = identity_.command;
  f["output_dir"] = identity_.outputDir;
  addFile(r);
  f["step"] = std::to_string(steps_.step());
  if (const int64_t period = steps_.periodNs(); period > 0) f["step_ns"] = std::to_string(period);
  if (const int64_t age = steps_.sinceChangeNs(nowNs); age >= 0) {
    f["step_age_ns"] = std::to_string(age);
  }
  addWindow(r);
  const std::string& window = f["window"];
  const MemoryWindowState memory = recorder_.memoryWindow();
  // A watch beside a file window is "recording" (attach is refused as for any recording
  // process); its keep says it is watched too.
  f["state"] = recorder_.disabled()                ? "off"
               : memory.open && !memory.besideFile ? "watching"
               : isRecording(controlWord())        ? "recording"
               : window == "armed"                 ? "armed"
                                                   : "dormant";
  if (memory.open) f["keep"] = control::formatSeconds(memory.keepNs);
  return r;
}

Reply ControlHandler::start(const Command& c) {
  if (recorder_.disabled()) return refusal("capture is off in this process");
  WindowRequest request = windowRequestFor(c, reasonOf(c));
  // A file window takes over from a memory window and the watch goes on beside it (docs/agent.md):
  // what the memory window held goes to it first, and the writer switches to the file at once.
  const MemoryWindowState memory = recorder_.memoryWindow();
  const bool fromMemory = memory.open && memory.index >= 0;
  if (fromMemory && flush_ != nullptr) flush_(kSwitchFlushMs);
  const int64_t step = recorder_.currentStep();
  const size_t index = recorder_.windows().size();
  std::string why;
  if (!recorder_.request(request, &why)) return refusal(why);
  if (fromMemory && flush_ != nullptr) flush_(kSwitchFlushMs);
  const bool armed = request.steps > 0 || request.atStepBoundary;
  armedIndex_ = armed ? static_cast<int64_t>(index) : -1;
  Reply r;
  r.ok = true;
  r.fields["window"] = armed ? "armed" : "open";
  r.fields["window_index"] = std::to_string(index);
  r.fields["step"] = std::to_string(step);
  if (c.fromStep >= 0) {
    r.fields["from"] = std::to_string(c.fromStep);
    // Already there: the window opens at the next step, later than on the other ranks.
    if (step >= c.fromStep) r.fields["late"] = "1";
  }
  addFile(r);
  return r;
}

// Who it is (as status says) and where it is now. Answered by the control thread while the job's
// threads may be stuck anywhere: nothing here waits on them (live_state.h).
Reply ControlHandler::hang(int64_t nowNs) {
  if (liveSource_ == nullptr) return refusal("this process keeps no live state");
  Reply r = status(nowNs);
  control::LiveSnapshot snapshot = liveSource_();
  for (const auto& [name, value] : identity_.env) snapshot.env.emplace(name, value);
  control::addSnapshot(snapshot, r);
  return r;
}

Reply ControlHandler::stop() {
  const std::vector<WindowRecord> windows = recorder_.windows();
  const bool armed = armedNow(windows.size());
  const MemoryWindowState memory = recorder_.memoryWindow();
  // A file window (not the watch's memory window) is open.
  const bool open = !windows.empty() && windows.back().endNs == 0 && !windows.back().memory &&
                    isRecording(controlWord());
  recorder_.stop();
  armedIndex_ = -1;
  Reply r;
  r.ok = true;
  // One thing at a time: the file window, else the armed one, else the watch.
  r.fields["stopped"] = open ? "window" : armed ? "armed" : memory.open ? "watch" : "nothing";
  if (!windows.empty()) r.fields["window_index"] = std::to_string(windows.size() - 1);
  addFile(r);
  return r;
}

}  // namespace bubblescope::agent

namespace bubblescope::agent {

// Starts a watch, or renews the live one (a watcher sends this every so often; the lease also runs
// from each snapshot): a memory window, or beside the file window while the process records to a
// file (its trace then follows the file). Refused only when capture is off.
Reply ControlHandler::watch(const Command& c, int64_t nowNs) {
  if (recorder_.disabled()) return refusal("capture is off in this process");
  const int64_t keepNs = c.keepNs > 0 ? c.keepNs : control::kDefaultKeepNs;
  const bool renewing = recorder_.memoryWindow().open;
  // A file window that just closed: its last events go to its file, not to the memory window.
  if (!renewing && flush_ != nullptr && recorder_.hadFileWindow()) flush_(kSwitchFlushMs);
  std::string why;
  if (!recorder_.watch(keepNs, realtimeNs(), &why)) return refusal(why);
  Reply r = status(nowNs);
  r.fields["renewed"] = renewing ? "1" : "0";
  r.fields["lease_ns"] = std::to_string(watchLeaseNs(keepNs));
  return r;
}

// The memory window's trace, as an SQLite image of a rank trace, in `payload`; the reply says how
// many bytes follow it. Renews the lease.
Reply ControlHandler::snapshot(std::string* payload) {
  if (!recorder_.renewWatch(realtimeNs())) {
    const std::string ended = recorder_.watchEndReason();
    return refusal("no memory window: send watch first" +
                   (ended.empty() ? std::string() : " (the last one ended: " + ended + ")"));
  }
  if (imageSource_ == nullptr) return refusal("this process cannot take snapshots");
  // The step before the image: a watch reads every step before the slowest rank's as finished
  // and held, which the image must hold. Read after it, a step that began while the image was
  // taken would name one the image lacks (a rank slow to answer near the job's end).
  const int64_t step = recorder_.currentStep();
  MemorySnapshot m = imageSource_(kSnapshotTimeoutMs, control::kMaxSnapshotBytes);
  if (!m.ok) return refusal(m.error);
  const MemoryWindowState memory = recorder_.memoryWindow();
  Reply r;
  r.ok = true;
  auto& f = r.fields;
  f["bytes"] = std::to_string(m.image.size());
  f["pid"] = std::to_string(identity_.pid);
  f["rank"] = std::to_string(identity_.rank);
  f["step"] = std::to_string(step);
  if (const int64_t period = steps_.periodNs(); period > 0) f["step_ns"] = std::to_string(period);
  f["now_ns"] = std::to_string(m.nowNs);
  f["held_from_ns"] = std::to_string(m.heldFromNs);
  // A watch that fell behind reads steps older than this as gone, not as broken.
  if (const int64_t whole = recorder_.wholeStepsFrom(m.heldFromNs); whole >= 0) {
    f["whole_from_step"] = std::to_string(whole);
  }
  f["window_start"] = std::to_string(m.windowStartNs);
  f["keep"] = control::formatSeconds(memory.keepNs);
  *payload = std::move(m.image);
  return r;
}

}  // namespace bubblescope::agent
