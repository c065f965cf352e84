#include "gui/app/live_session.h"

#include <utility>

namespace bubblescope::gui {

LiveSession::LiveSession(LiveFeed feed, analysis::AnalyzeOptions options)
    : feed_(std::move(feed)), options_(std::move(options)), thread_([this] { follow(); }) {}

LiveSession::~LiveSession() {
  stop_.store(true);
  thread_.join();
}

// Caller holds mutex_.
void LiveSession::say(const std::string& line) {
  lines_.push_back(line);
}

void LiveSession::follow() {
  while (!stop_.load()) {
    LiveUpdate u;
    try {
      u = feed_.next(stop_);
    } catch (const std::exception& e) {
      // A poll that fails (out of memory, a socket error) ends the watch, not the viewer: what
      // was shown stays.
      u = LiveUpdate{};
      u.end = std::string("the watch ended: ") + e.what();
    }
    if (stop_.load()) break;
    std::unique_ptr<LoadedRun> run;
    std::string refused;
    if (u.newSteps > 0 && u.lastStep >= u.firstStep && !u.run.ranks.empty()) {
      analysis::AnalyzeOptions o = options_;
      o.firstStep = u.firstStep;
      o.lastStep = u.lastStep;
      try {
        run = analyzeLoaded("run " + feed_.runId + " (live)", std::move(u.run), o, true);
      } catch (const std::exception& e) {
        // Ranks that started late, a window that holds no pipeline: said once, and the next
        // window is tried.
        refused = std::string("steps ") + std::to_string(u.firstStep) + "-" +
                  std::to_string(u.lastStep) + " not shown: " + e.what();
      }
    }
    {
      std::lock_guard lock(mutex_);
      for (const std::string& line : u.notes) {
        say(line);
        status_.note = line;
      }
      if (!refused.empty()) {
        if (refusals_.insert(refused.substr(refused.find(':'))).second) say(refused);
        status_.refused = refused;
      }
      if (run) status_.refused.clear();
      if (u.newSteps > 0) status_.silence.clear();
      if (!u.silence.empty()) {
        say(u.silence);
        status_.silence = u.silence;
      }
      if (run) {
        ready_ = std::move(run);
        keep_ = u.keep;
      }
      readySteps_ += u.newSteps;
      if (!u.end.empty()) {
        say(u.end);
        status_.end = u.end;
      }
    }
    changed_.notify_all();
    if (!u.end.empty()) break;
  }
}

std::unique_ptr<LoadedRun> LiveSession::take(int64_t* newSteps) {
  std::lock_guard lock(mutex_);
  if (!ready_) return nullptr;
  *newSteps = readySteps_;
  readySteps_ = 0;
  return std::move(ready_);
}

std::vector<std::string> LiveSession::lines() {
  std::lock_guard lock(mutex_);
  return std::exchange(lines_, {});
}

void LiveSession::wait(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  changed_.wait_for(lock, timeout,
                    [this] { return ready_ || !lines_.empty() || !status_.end.empty(); });
}

LiveStatus LiveSession::status() const {
  std::lock_guard lock(mutex_);
  return status_;
}

std::string LiveSession::keep() const {
  std::lock_guard lock(mutex_);
  return keep_;
}

}  // namespace bubblescope::gui
