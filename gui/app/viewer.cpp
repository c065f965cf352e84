#include "gui/app/viewer.h"

#include <imgui.h>

#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "gui/app/keys.h"
#include "gui/app/live_session.h"
#include "gui/app/live_view.h"
#include "gui/app/png_writer.h"
#include "gui/app/session.h"
#include "gui/app/viewer_frame.h"
#include "gui/app/window.h"

namespace bubblescope::gui {
namespace {

// ImGui lays a window out over its first frames (sizes of text and columns): a screenshot is taken
// of the third.
constexpr int kScreenshotFrames = 3;
// With no input and nothing moving, the window sleeps this long between checks.
constexpr double kIdleWaitSeconds = 0.5;
// How long a wait for the job's feed lasts before it looks again (at what the feed said).
constexpr auto kLiveWait = std::chrono::milliseconds(500);

std::unique_ptr<LoadedRun> loadNamed(const std::string& path, const ViewerOptions& o) {
  if (isatty(2)) std::cerr << "bubblescope: view: loading and analysing " << path << "\n";
  return loadRun(path, o.load, o.analyze);
}

bool animating(const ViewerState& s) {
  return s.drag != DragMode::None || s.loading.running() || keys::down(GLFW_KEY_W) ||
         keys::down(GLFW_KEY_A) || keys::down(GLFW_KEY_S) || keys::down(GLFW_KEY_D);
}

int screenshot(Window& w, ViewerState& s, const ViewerOptions& o) {
  Pixels pixels;
  for (int i = 0; i < kScreenshotFrames; ++i) {
    w.waitEvents(0);
    w.beginFrame();
    drawFrame(s, w.width(), w.height(), 0);
    w.render();
    if (i + 1 == kScreenshotFrames) pixels = w.readPixels();
    w.present();
  }
  writePng(o.screenshot, pixels);
  std::cerr << "bubblescope: view: wrote " << o.screenshot << " (" << pixels.width << "x"
            << pixels.height << ")\n";
  return 0;
}

void say(const std::vector<std::string>& lines) {
  for (const std::string& line : lines) std::cerr << "bubblescope: view: " << line << "\n";
}

// Redraws on input, while something moves and, on a running job, when its feed brought
// something; returns when the window is closed.
int interact(Window& w, ViewerState& s) {
  uint64_t seen = ~uint64_t{0};
  int extraFrames = 0;
  auto last = std::chrono::steady_clock::now();
  while (!w.shouldClose()) {
    const bool moving = animating(s);
    w.waitEvents(moving || extraFrames > 0 ? 0 : kIdleWaitSeconds);
    if (s.live.session) {
      const LoadedRun* shown = s.primary.get();
      const int64_t waiting = s.live.follow.waiting();
      const std::vector<std::string> said = pollLive(s);
      say(said);
      if (!said.empty() || shown != s.primary.get() || waiting != s.live.follow.waiting()) {
        extraFrames = std::max(extraFrames, 2);
      }
    }
    if (w.events() != seen) {
      seen = w.events();
      extraFrames = 3;  // hover and layout settle a frame or two after the input
    } else if (!moving) {
      if (extraFrames == 0) continue;  // nothing changed: the last frame is still on screen
      --extraFrames;
    }
    const auto now = std::chrono::steady_clock::now();
    const double dt = std::chrono::duration<double>(now - last).count();
    last = now;
    w.beginFrame();
    drawFrame(s, w.width(), w.height(), dt);
    w.render();
    w.present();
  }
  return 0;
}

// view --attach. Nothing is drawn before the job's first steps are analysed; a screenshot waits
// for o.afterSteps of them, or takes what is shown when the job ends or stops finishing steps.
int runLive(const ViewerOptions& o) {
  const bool headless = !o.screenshot.empty();
  o.live.start();
  std::cerr << "bubblescope: view: attached to " << o.live.processes << " process(es) of run "
            << o.live.runId << "; waiting for steps to finish\n";
  LiveSession live(o.live, o.analyze);
  ViewerState s;  // after `live`: it points to it, and goes first
  int64_t steps = 0;
  std::unique_ptr<LoadedRun> first;
  while (!first) {
    live.wait(kLiveWait);
    first = live.take(&steps);
    std::vector<std::string> said = live.lines();
    const LiveStatus st = live.status();
    // A screenshot does not wait for a job that hangs, or whose windows the analysis refuses.
    const std::string over = !st.end.empty()       ? st.end
                             : !headless           ? ""
                             : !st.silence.empty() ? st.silence
                                                   : st.refused;
    if (!first && !over.empty()) first = live.take(&steps);  // it may have come with the end
    if (first || over.empty()) {
      say(said);
      continue;
    }
    if (!headless) {
      say(said);
      return 0;  // the job ended before a step finished: said, nothing to show
    }
    // One line: the screenshot's sentence gives the reason.
    std::erase(said, over);
    say(said);
    throw std::invalid_argument(o.screenshot + " was not written: no step was shown (" + over +
                                ")");
  }
  initState(s, std::move(first), nullptr, o);
  s.live.session = &live;
  s.live.stepsShown = steps;
  s.selectStep(static_cast<int>(s.panes[0].result().steps.size()) - 1);
  s.live.follow.set(shownView(s));

  Window w(o.width, o.height, "bubblescope view - run " + o.live.runId + " (live)", !headless,
           !headless);
  if (!headless) return interact(w, s);
  while (s.live.stepsShown < o.afterSteps) {
    live.wait(kLiveWait);
    say(pollLive(s));
    const LiveStatus st = live.status();
    // No more steps to wait for: the frame shows what was shown.
    if (!st.end.empty() || !st.silence.empty() || !st.refused.empty()) break;
  }
  // What the frame shows, for scripts and tests: the PNG alone does not say which steps.
  const auto& shownSteps = s.panes[0].result().steps;
  if (!shownSteps.empty()) {
    std::cerr << "bubblescope: view: steps " << shownSteps.front().number << "-"
              << shownSteps.back().number << " of run " << o.live.runId << " shown, newest step "
              << newestShown(s) << "\n";
  }
  return screenshot(w, s, o);
}

}  // namespace

int runViewer(const ViewerOptions& o) {
  requireDisplay();  // before a load that may take a while
  if (o.live.attached()) return runLive(o);
  auto primary = loadNamed(o.run, o);
  std::unique_ptr<LoadedRun> compare;
  if (!o.compare.empty()) compare = loadNamed(o.compare, o);
  ViewerState s;
  initState(s, std::move(primary), std::move(compare), o);

  const bool headless = !o.screenshot.empty();
  Window w(o.width, o.height, "bubblescope view - " + o.run, !headless, !headless);
  if (headless) return screenshot(w, s, o);
  return interact(w, s);
}

}  // namespace bubblescope::gui
