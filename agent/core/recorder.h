#pragma once
// The recorder's control plane: whether the process records now, capture windows (start/stop,
// N steps counted at `step N` ranges, or a duration; or a memory window for `bubblescope watch`,
// held open by a lease) and the step counter. Producers read one atomic word per event;
// everything else here is a cold path under a mutex.
//
// Phase 2 (attach over a control socket) calls request()/stop() from its own thread; producers
// call onStepBoundary() when a `step N` range opens while stepsWatched() says so.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agent/core/step_starts.h"
#include "traces/model/trace.h"

namespace bubblescope::agent {

// The control word: bit 0 recording, bit 1 step names are watched, bit 2 open push/pop ranges
// are kept while dormant (so a live `hang` query can say where a hung thread waits), the rest a
// generation that changes whenever a window opens (ranges opened in an earlier window are then
// forgotten).
inline constexpr uint32_t kRecordingBit = 1u;
inline constexpr uint32_t kWatchStepsBit = 2u;
inline constexpr uint32_t kOpenOpsBit = 4u;
inline constexpr uint32_t kGenerationShift = 3;

namespace detail {
extern std::atomic<uint32_t> g_control;
}  // namespace detail

inline uint32_t controlWord() {
  return detail::g_control.load(std::memory_order_relaxed);
}
inline bool isRecording(uint32_t word) {
  return (word & kRecordingBit) != 0;
}
inline bool stepsWatched(uint32_t word) {
  return (word & kWatchStepsBit) != 0;
}
// Push/pop ranges are kept on the thread's stack: recording, or dormant with open-op tracking.
inline bool rangesTracked(uint32_t word) {
  return (word & (kRecordingBit | kOpenOpsBit)) != 0;
}
inline uint32_t generationOf(uint32_t word) {
  return word >> kGenerationShift;
}

struct WindowRequest {
  int64_t steps = 0;            // > 0: capture this many steps, starting at a step boundary
  int64_t fromStep = -1;        // with steps: the first step to capture; -1 = the next one to begin
  int64_t durationNs = 0;       // > 0: stop after this long
  bool atStepBoundary = false;  // a duration window that starts at the next step boundary
  bool createFile = false;      // write the file even if no event arrives (attach wants a record)
  std::string reason;           // capture_windows.reason: "record", "attach --steps 2", ...
};

struct WindowRecord {
  int64_t startNs = 0;
  int64_t endNs = 0;  // 0 while open
  std::string reason;
  traces::ClockAnchor anchor;  // clocks read together when it opened
  bool memory = false;         // a memory window (watch): written to memory, never to the file
};

// The memory window (watch) as the writer and the control handler see it. A watch lives while
// its lease does: alone, it records into memory (a memory window, in windows()); while the
// process records to a file, beside it, and its trace follows the file (traces::TraceMirror).
struct MemoryWindowState {
  bool open = false;        // a watch is live
  bool besideFile = false;  // ... while a file window is open: its trace follows the file
  int64_t index = -1;       // alone: its memory window in windows(); beside a file: -1
  int64_t serial = 0;       // changes whenever its trace must start afresh (a switch of kind)
  int64_t keepNs = 0;       // how much it keeps
  int64_t leaseEndNs = 0;   // it ends by itself then, unless renewed
};

// How long a memory window lives without a watch or snapshot request: long enough for a
// watcher's slow round, short enough that a watcher that died does not leave the job recording.
int64_t watchLeaseNs(int64_t keepNs);

class Recorder {
 public:
  static Recorder& instance();

  // At start-up: recording from now on (`record`), or dormant until a request.
  void begin(bool recordNow, std::string_view reason);
  // Opens a window now, or arms one for the next step boundary. False (with the reason) when
  // a window is already open or armed, or capture was turned off for good.
  bool request(const WindowRequest& request, std::string* whyNot = nullptr);
  // Closes the open file window (a watch goes on), else forgets an armed one, else ends the watch.
  void stop();
  // Starts a watch keeping keepNs (or renews the live one, which then keeps keepNs), its lease
  // running from nowNs (CLOCK_REALTIME): a memory window, or beside the open file window. A file
  // window that opens or closes meanwhile does not end it. False (with the reason) only when
  // capture is off for good.
  bool watch(int64_t keepNs, int64_t nowNs, std::string* whyNot = nullptr);
  // A snapshot was asked for: the live watch's lease runs from nowNs. False if none.
  bool renewWatch(int64_t nowNs);
  // Ends the watch (the writer could not keep it), saying why to the next request.
  void endWatch(const std::string& why);
  MemoryWindowState memoryWindow() const;
  // Why the last memory window ended ("" while none has).
  std::string watchEndReason() const;
  // A file window (not a memory one) has been opened at some time: the file may be created.
  bool hadFileWindow() const;
  // A `step N` range is opening (producers call this only while stepsWatched()).
  void onStepBoundary(int64_t step);
  // Keep counting steps even while no window needs them (attach wants the current step).
  void trackSteps(bool on);
  int64_t currentStep() const;  // -1 before the first step seen while watching
  // The first step whose start a window that holds records from `heldFromNs` on still holds, and
  // every step's after it; -1 when unknown (step_starts.h).
  int64_t wholeStepsFrom(int64_t heldFromNs) const;
  // Keep each thread's open push/pop ranges while dormant too (the live `hang` query reads them).
  void trackOpenOps(bool on);
  // Writer thread, every cycle: ends a duration window whose time is up, or a memory window
  // whose lease ran out.
  void tick(int64_t nowNs);
  // Capture off for good (output unusable, shutting down). Idempotent.
  void disable();
  bool disabled() const;
  // The process has begun to exit (the agent's unload): set before the socket and the writer go,
  // so a request in flight is refused as such (protocol.h, kExitingMessage).
  void markExiting() { exiting_.store(true, std::memory_order_release); }
  bool exiting() const { return exiting_.load(std::memory_order_acquire); }
  bool wantsFile() const;  // a window asked for the file to exist even without events

  // Writer side: the windows so far, and a counter that changes with them.
  uint64_t version() const { return version_.load(std::memory_order_acquire); }
  std::vector<WindowRecord> windows() const;

  // Called (with the recorder's lock held) when a window opens that needs the writer before the
  // first event (a duration window, one that asked for the file, a memory window), or that
  // switches between memory and a file mid-run: the writer must run now.
  void setWindowOpenedHook(void (*hook)()) { windowOpened_ = hook; }
  // Called when capture becomes wanted: a window is armed (it opens at the next step boundary)
  // or opens. Runs on the thread that asked, once the recorder's lock is released (so the hook
  // may call into libraries whose own callbacks read the recorder).
  void setCaptureWantedHook(void (*hook)()) { captureWanted_ = hook; }
  // A window is open or armed.
  bool captureWanted() const;

  // fork(): hold the lock across it (false if it could not be had in time: the child then
  // records nothing); the child starts its own window list and releases the lock.
  bool lockForFork() { return mutex_.try_lock_for(std::chrono::milliseconds(500)); }
  void unlockInParent() { mutex_.unlock(); }
  void resetInChild();

 private:
  void openLocked(std::string reason, int64_t stopAtStep, int64_t stopAtNs, bool createFile,
                  bool notify);
  void closeLocked(int64_t nowNs);
  void openMemoryLocked();
  void endWatchLocked(int64_t nowNs, std::string why);
  bool requestLocked(const WindowRequest& request, std::string* whyNot);
  void onStepBoundaryLocked(int64_t step);
  void publishLocked(bool recording, bool newGeneration);
  template <class Body>
  bool lockedThenNotify(Body&& body);

  mutable std::timed_mutex mutex_;
  std::vector<WindowRecord> windows_;
  std::optional<WindowRequest> armed_;
  bool open_ = false;
  std::atomic<bool> disabled_{false};  // read without the lock (fork child, writer)
  std::atomic<bool> exiting_{false};
  bool trackSteps_ = false;
  bool trackOpenOps_ = false;
  bool createFile_ = false;
  bool hadFileWindow_ = false;
  bool memory_ = false;    // the open window is a memory window
  bool watching_ = false;  // a watch is live: its lease, what it keeps
  int64_t watchKeepNs_ = 0;
  int64_t watchLeaseEndNs_ = 0;
  int64_t watchSerial_ = 0;
  std::string watchEndReason_;
  int64_t stopAtStep_ = -1;
  int64_t stopAtNs_ = -1;
  int64_t currentStep_ = -1;
  StepStarts stepStarts_;
  std::atomic<uint64_t> version_{0};
  void (*windowOpened_)() = nullptr;
  void (*captureWanted_)() = nullptr;
};

traces::ClockAnchor readClockAnchor();

}  // namespace bubblescope::agent
