#pragma once
// What the agent answers on its control socket: status, and capture windows opened and closed
// through the recorder (so every producer starts and stops with them). The socket plumbing is
// in control_server.h; this part has no I/O and is tested with a Recorder of its own.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "agent/control/live_snapshot.h"
#include "agent/control/protocol.h"
#include "agent/control/step_clock.h"
#include "agent/core/recorder.h"

namespace bubblescope::agent {

// Who this process is, as `status` reports it (fixed when the server starts).
struct ControlIdentity {
  int64_t pid = 0;
  int rank = -1;
  int localRank = -1;
  int worldSize = -1;
  std::string runId;
  std::string command;       // the command line, cut to 256 bytes
  std::string outputDir;     // where its trace goes
  std::string expectedFile;  // the trace's name before it exists ("rank-00003.sqlite")
  std::map<std::string, std::string> env;  // BUBBLESCOPE_* and launcher variables, as meta.extra
};

class ControlHandler {
 public:
  ControlHandler(Recorder& recorder, ControlIdentity identity)
      : recorder_(recorder), identity_(std::move(identity)) {}

  // One request line in, one reply out (nowNs: CLOCK_MONOTONIC).
  control::Reply handle(std::string_view line, int64_t nowNs);
  // Every tick of the control thread: samples the step counter.
  void tick(int64_t nowNs) { steps_.observe(recorder_.currentStep(), nowNs); }
  // Where the file is (once written) or will be; the writer knows the real name.
  void setFileLookup(std::string (*lookup)()) { fileLookup_ = lookup; }
  // What `hang` answers: where the threads are and the last NCCL calls
  // (agent/process/live_state.h).
  void setLiveSnapshotSource(control::LiveSnapshot (*source)()) { liveSource_ = source; }

 private:
  control::Reply status(int64_t nowNs);
  control::Reply start(const control::Command& command);
  control::Reply stop();
  control::Reply hang(int64_t nowNs);
  void addWindow(control::Reply& reply);
  void addFile(control::Reply& reply) const;  // file (written, or where it will be), file_written
  bool armedNow(size_t windowCount) const;

  Recorder& recorder_;
  ControlIdentity identity_;
  control::StepClock steps_;
  int64_t armedIndex_ = -1;  // the index the window we armed will have; -1 if none is armed
  std::string (*fileLookup_)() = nullptr;
  control::LiveSnapshot (*liveSource_)() = nullptr;
};

}  // namespace bubblescope::agent
