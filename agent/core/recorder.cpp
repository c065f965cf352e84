#include "agent/core/recorder.h"

#include <algorithm>

#include "agent/core/clock.h"

namespace bubblescope::agent {

namespace detail {
std::atomic<uint32_t> g_control{0};
}  // namespace detail

traces::ClockAnchor readClockAnchor() {
  traces::ClockAnchor a;
  a.realtimeNs = realtimeNs();
  a.monotonicNs = monotonicNs();
  return a;
}

int64_t watchLeaseNs(int64_t keepNs) {
  constexpr int64_t kMinLeaseNs = 10'000'000'000;
  return std::max(2 * keepNs, kMinLeaseNs);
}

Recorder& Recorder::instance() {
  // Never destroyed: threads may still emit events while the process exits.
  static auto* recorder = new Recorder;
  return *recorder;
}

void Recorder::publishLocked(bool recording, bool newGeneration) {
  uint32_t word = detail::g_control.load(std::memory_order_relaxed);
  uint32_t generation = generationOf(word) + (newGeneration ? 1 : 0);
  const bool watch =
      !disabled_ && (trackSteps_ || armed_.has_value() || (open_ && stopAtStep_ >= 0));
  word = (generation << kGenerationShift) | (recording ? kRecordingBit : 0u) |
         (watch ? kWatchStepsBit : 0u) | (trackOpenOps_ && !disabled_ ? kOpenOpsBit : 0u);
  detail::g_control.store(word, std::memory_order_release);
  version_.fetch_add(1, std::memory_order_acq_rel);
}

void Recorder::openLocked(std::string reason, int64_t stopAtStep, int64_t stopAtNs, bool createFile,
                          bool notify) {
  WindowRecord w;
  w.anchor = readClockAnchor();
  w.startNs = w.anchor.realtimeNs;
  w.reason = std::move(reason);
  windows_.push_back(std::move(w));
  hadFileWindow_ = true;
  open_ = true;
  memory_ = false;
  stopAtStep_ = stopAtStep;
  stopAtNs_ = stopAtNs;
  createFile_ = createFile_ || createFile;
  publishLocked(true, true);
  // The writer starts with the first event; a window that must end on time or must leave a file
  // needs it now.
  if (notify && windowOpened_ != nullptr && (stopAtNs >= 0 || createFile)) windowOpened_();
}

void Recorder::closeLocked(int64_t nowNs) {
  if (!open_) return;
  windows_.back().endNs = nowNs;
  open_ = false;
  stopAtStep_ = -1;
  stopAtNs_ = -1;
  const bool memory = memory_;
  memory_ = false;
  if (memory) ++watchSerial_;
  // After a memory window, a new generation: ranges it opened are forgotten when they close, so
  // none of them reaches a file (the memory trace is gone by then).
  publishLocked(false, memory);
  // A file window that ends under a live watch: the watch goes on, in memory.
  if (!memory && watching_ && !disabled_) openMemoryLocked();
}

// Records into memory for the live watch; the writer gives it a trace of its own.
void Recorder::openMemoryLocked() {
  WindowRecord w;
  w.anchor = readClockAnchor();
  w.startNs = w.anchor.realtimeNs;
  w.reason = "watch";
  w.memory = true;
  windows_.push_back(std::move(w));
  open_ = true;
  memory_ = true;
  stopAtStep_ = -1;
  stopAtNs_ = -1;
  ++watchSerial_;
  publishLocked(true, true);
  // The writer must run to keep the lease and the memory trace, event or not.
  if (windowOpened_ != nullptr) windowOpened_();
}

void Recorder::endWatchLocked(int64_t nowNs, std::string why) {
  if (!watching_) return;
  watching_ = false;
  watchEndReason_ = std::move(why);
  ++watchSerial_;
  if (open_ && memory_) closeLocked(nowNs);
}

// Runs `body` under the lock, then (outside it) the capture-wanted hook if a window was armed
// or opened.
template <class Body>
bool Recorder::lockedThenNotify(Body&& body) {
  bool newlyWanted = false;
  bool result = false;
  {
    std::lock_guard lock(mutex_);
    const bool wantedBefore = open_ || armed_.has_value();
    const size_t windowsBefore = windows_.size();
    result = body();
    newlyWanted =
        ((open_ || armed_.has_value()) && !wantedBefore) || windows_.size() > windowsBefore;
  }
  if (newlyWanted && captureWanted_ != nullptr) captureWanted_();
  return result;
}

bool Recorder::captureWanted() const {
  std::lock_guard lock(mutex_);
  return open_ || armed_.has_value();
}

void Recorder::begin(bool recordNow, std::string_view reason) {
  lockedThenNotify([&] {
    if (recordNow) {
      openLocked(std::string(reason), -1, -1, false, true);
    } else {
      publishLocked(false, false);
    }
    return true;
  });
}

bool Recorder::request(const WindowRequest& r, std::string* whyNot) {
  return lockedThenNotify([&] { return requestLocked(r, whyNot); });
}

bool Recorder::requestLocked(const WindowRequest& r, std::string* whyNot) {
  auto refuse = [&](const char* why) {
    if (whyNot != nullptr) *whyNot = why;
    return false;
  };
  if (disabled_) return refuse("capture is off in this process");
  if (open_ && !memory_) return refuse("already recording");
  if (armed_) return refuse("a window is already waiting for its first step");
  if (r.steps > 0 || r.atStepBoundary) {
    armed_ = r;
    publishLocked(open_, false);  // a memory window records on until the step
    return true;
  }
  const int64_t now = realtimeNs();
  // The file window takes over from a memory window; the watch goes on beside it.
  if (open_) closeLocked(now);
  openLocked(r.reason, -1, r.durationNs > 0 ? now + r.durationNs : -1, r.createFile, true);
  return true;
}

void Recorder::stop() {
  std::lock_guard lock(mutex_);
  const bool fileOpen = open_ && !memory_;
  const bool armed = armed_.has_value();
  armed_.reset();
  if (fileOpen) {
    closeLocked(realtimeNs());  // a watch goes on, in memory
  } else if (!armed && watching_) {
    endWatchLocked(realtimeNs(), "a stop request ended it");
  } else {
    publishLocked(open_, false);
  }
}

bool Recorder::watch(int64_t keepNs, int64_t nowNs, std::string* whyNot) {
  return lockedThenNotify([&] {
    if (disabled_) {
      if (whyNot != nullptr) *whyNot = "capture is off in this process";
      return false;
    }
    if (watching_) {
      watchKeepNs_ = keepNs;
      watchLeaseEndNs_ = std::max(watchLeaseEndNs_, nowNs + watchLeaseNs(keepNs));
      return true;
    }
    watching_ = true;
    watchKeepNs_ = keepNs;
    watchLeaseEndNs_ = nowNs + watchLeaseNs(keepNs);
    ++watchSerial_;
    // Alone, it records into memory (an armed file window takes over at its step); beside an
    // open file window, the writer follows the file.
    if (!open_) {
      openMemoryLocked();
    } else if (windowOpened_ != nullptr) {
      windowOpened_();
    }
    return true;
  });
}

bool Recorder::renewWatch(int64_t nowNs) {
  std::lock_guard lock(mutex_);
  if (!watching_) return false;
  watchLeaseEndNs_ = std::max(watchLeaseEndNs_, nowNs + watchLeaseNs(watchKeepNs_));
  return true;
}

void Recorder::endWatch(const std::string& why) {
  std::lock_guard lock(mutex_);
  endWatchLocked(realtimeNs(), why);
}

MemoryWindowState Recorder::memoryWindow() const {
  std::lock_guard lock(mutex_);
  MemoryWindowState m;
  if (!watching_) return m;
  m.open = true;
  m.besideFile = open_ && !memory_;
  m.index = open_ && memory_ ? static_cast<int64_t>(windows_.size()) - 1 : -1;
  m.serial = watchSerial_;
  m.keepNs = watchKeepNs_;
  m.leaseEndNs = watchLeaseEndNs_;
  return m;
}

std::string Recorder::watchEndReason() const {
  std::lock_guard lock(mutex_);
  return watchEndReason_;
}

bool Recorder::hadFileWindow() const {
  std::lock_guard lock(mutex_);
  return hadFileWindow_;
}

void Recorder::onStepBoundary(int64_t step) {
  lockedThenNotify([&] {
    onStepBoundaryLocked(step);
    return true;
  });
}

void Recorder::onStepBoundaryLocked(int64_t step) {
  currentStep_ = step;
  stepStarts_.note(step, realtimeNs());
  if (open_ && !memory_ && stopAtStep_ >= 0 && step >= stopAtStep_) closeLocked(realtimeNs());
  if ((!open_ || memory_) && armed_ && !disabled_ &&
      (armed_->fromStep < 0 || step >= armed_->fromStep)) {
    const WindowRequest r = *armed_;
    armed_.reset();
    const bool fromMemory = open_;
    if (fromMemory) closeLocked(realtimeNs());  // the watch goes on beside the file
    const int64_t stopAtStep = r.steps > 0 ? step + r.steps : -1;
    const int64_t stopAtNs = r.durationNs > 0 ? realtimeNs() + r.durationNs : -1;
    openLocked(r.reason, stopAtStep, stopAtNs, r.createFile, true);
    // The writer switches now, so the memory window's last records and the file's first go each
    // to its own trace (a writer cycle later, ops of the file's first step would reach memory).
    if (fromMemory && windowOpened_ != nullptr) windowOpened_();
  }
}

void Recorder::trackSteps(bool on) {
  std::lock_guard lock(mutex_);
  trackSteps_ = on;
  publishLocked(open_, false);
}

void Recorder::trackOpenOps(bool on) {
  std::lock_guard lock(mutex_);
  trackOpenOps_ = on;
  publishLocked(open_, false);
}

int64_t Recorder::wholeStepsFrom(int64_t heldFromNs) const {
  std::lock_guard lock(mutex_);
  return stepStarts_.wholeFrom(heldFromNs);
}

int64_t Recorder::currentStep() const {
  std::lock_guard lock(mutex_);
  return currentStep_;
}

void Recorder::tick(int64_t nowNs) {
  std::lock_guard lock(mutex_);
  if (open_ && !memory_ && stopAtNs_ >= 0 && nowNs >= stopAtNs_) closeLocked(nowNs);
  if (watching_ && nowNs >= watchLeaseEndNs_) {
    endWatchLocked(nowNs, "its lease ran out: no watch or snapshot request for " +
                              std::to_string(watchLeaseNs(watchKeepNs_) / 1'000'000'000) + " s");
  }
}

void Recorder::disable() {
  std::unique_lock lock(mutex_, std::defer_lock);
  if (!lock.try_lock_for(std::chrono::milliseconds(500))) {
    // A thread interrupted inside the recorder (exit from a signal handler) holds the lock:
    // stop recording through the word alone.
    const uint32_t word = detail::g_control.load(std::memory_order_relaxed);
    detail::g_control.store(((generationOf(word) + 1) << kGenerationShift),
                            std::memory_order_release);
    disabled_.store(true, std::memory_order_release);
    return;
  }
  if (disabled_) return;
  disabled_.store(true, std::memory_order_release);
  armed_.reset();
  if (watching_) {
    watching_ = false;
    watchEndReason_ = "capture is off in this process";
    ++watchSerial_;
  }
  if (open_) {
    windows_.back().endNs = realtimeNs();
    open_ = false;
    memory_ = false;
  }
  // A new generation: ranges still open are forgotten rather than recorded on their pop.
  publishLocked(false, true);
}

bool Recorder::disabled() const {
  return disabled_.load(std::memory_order_acquire);
}

bool Recorder::wantsFile() const {
  std::lock_guard lock(mutex_);
  return createFile_;
}

std::vector<WindowRecord> Recorder::windows() const {
  std::lock_guard lock(mutex_);
  return windows_;
}

void Recorder::resetInChild() {
  // The lock was taken in the parent before fork(); this thread holds it in the child.
  windows_.clear();
  createFile_ = false;
  hadFileWindow_ = false;
  trackOpenOps_ = false;  // a forked child has no control socket to be asked on
  watching_ = false;      // ... nor a watcher
  if (open_ && memory_) {
    // Nobody could read a memory window here (no control socket): the child stays dormant.
    open_ = false;
    memory_ = false;
    stopAtNs_ = -1;
    publishLocked(false, true);
  } else if (open_) {
    // The child records from its birth, in a window of its own; its writer starts with its
    // first event (no thread may be started inside a fork handler).
    open_ = false;
    openLocked("fork", stopAtStep_, stopAtNs_, false, false);
  } else {
    publishLocked(false, true);
  }
  mutex_.unlock();
}

}  // namespace bubblescope::agent
