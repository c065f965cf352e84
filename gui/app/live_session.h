#pragma once
// A running job followed in a background thread (view --attach): each update of its feed that
// finished steps is analysed as any recorded run and waits, the newest only, for the window to
// take it; the lines the feed says wait for the window to print and show them.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "gui/app/live_feed.h"
#include "gui/app/session.h"

namespace bubblescope::gui {

// What the feed says now, for the panel: the last note, the silence while it lasts, the last
// window the analysis refused (and why), the end.
struct LiveStatus {
  std::string note, silence, refused, end;
};

class LiveSession {
 public:
  // Starts polling `feed` (started already) at once.
  LiveSession(LiveFeed feed, analysis::AnalyzeOptions options);
  // Stops the thread: waits out the poll under way, if any.
  ~LiveSession();
  LiveSession(const LiveSession&) = delete;
  LiveSession& operator=(const LiveSession&) = delete;

  // The newest analysed window not taken yet, or null; `newSteps`: the steps that finished with
  // it and with the windows it replaced.
  std::unique_ptr<LoadedRun> take(int64_t* newSteps);
  // The lines said since the last call, in order (the end, if any, last).
  std::vector<std::string> lines();
  // Waits up to `timeout` for a window, a line or the end.
  void wait(std::chrono::milliseconds timeout);
  LiveStatus status() const;
  const LiveFeed& feed() const { return feed_; }
  // What each agent keeps, as the newest window says.
  std::string keep() const;

 private:
  void follow();
  void say(const std::string& line);

  LiveFeed feed_;
  analysis::AnalyzeOptions options_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::unique_ptr<LoadedRun> ready_;
  int64_t readySteps_ = 0;
  std::vector<std::string> lines_;
  LiveStatus status_;
  std::string keep_;
  std::set<std::string> refusals_;  // an analysis' refusal is said once
  std::atomic<bool> stop_{false};
  std::thread thread_;  // last: it starts once the rest is built
};

}  // namespace bubblescope::gui
