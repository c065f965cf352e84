#pragma once
// What the agent answers on its control socket: status, capture windows opened and closed
// through the recorder (so every producer starts and stops with them), and the memory window of
// `bubblescope watch` with its snapshots. The socket plumbing is in control_server.h; this part
// has no I/O of its own (the writer is reached through the functions it is given) and is tested
// with a Recorder of its own.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "agent/control/live_snapshot.h"
#include "agent/control/protocol.h"
#include "agent/control/step_clock.h"
#include "agent/core/memory_window.h"
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

  // One request line in, one reply out (nowNs: CLOCK_MONOTONIC). A snapshot's image goes to
  // `payload`, to be sent after the reply line (none without a payload to fill).
  control::Reply handle(std::string_view line, int64_t nowNs, std::string* payload = nullptr);
  // Every tick of the control thread: samples the step counter.
  void tick(int64_t nowNs) { steps_.observe(recorder_.currentStep(), nowNs); }
  // Where the file is (once written) or will be; the writer knows the real name.
  void setFileLookup(std::string (*lookup)()) { fileLookup_ = lookup; }
  // What `hang` answers: where the threads are and the last NCCL calls
  // (agent/process/live_state.h).
  void setLiveSnapshotSource(control::LiveSnapshot (*source)()) { liveSource_ = source; }
  // What `snapshot` answers with: the memory window's image (writer.h, memoryWindowImage).
  void setMemoryImageSource(MemorySnapshot (*source)(int timeoutMs, uint64_t maxBytes)) {
    imageSource_ = source;
  }
  // Commits what the writer holds (flushWriter), so that a switch between a file window and a
  // memory window leaves each one's events in its own trace.
  void setWriterFlush(bool (*flush)(int timeoutMs)) { flush_ = flush; }

  // How long a snapshot may wait for the writer (the client waits longer: kSnapshotClientMs).
  static constexpr int kSnapshotTimeoutMs = 1500;
  static constexpr int kSwitchFlushMs = 500;  // a flush between a file and a memory window

 private:
  control::Reply handleCommand(std::string_view line, int64_t nowNs, std::string* payload);
  control::Reply status(int64_t nowNs);
  control::Reply start(const control::Command& command);
  control::Reply stop();
  control::Reply hang(int64_t nowNs);
  control::Reply watch(const control::Command& command, int64_t nowNs);
  control::Reply snapshot(std::string* payload);
  void addWindow(control::Reply& reply);
  void addFile(control::Reply& reply) const;  // file (written, or where it will be), file_written
  bool armedNow(size_t windowCount) const;

  Recorder& recorder_;
  ControlIdentity identity_;
  control::StepClock steps_;
  int64_t armedIndex_ = -1;  // the index the window we armed will have; -1 if none is armed
  std::string (*fileLookup_)() = nullptr;
  control::LiveSnapshot (*liveSource_)() = nullptr;
  MemorySnapshot (*imageSource_)(int timeoutMs, uint64_t maxBytes) = nullptr;
  bool (*flush_)(int timeoutMs) = nullptr;
};

}  // namespace bubblescope::agent
