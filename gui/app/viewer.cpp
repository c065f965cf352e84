#include "gui/app/viewer.h"

#include <imgui.h>

#include <unistd.h>
#include <chrono>
#include <iostream>

#include "gui/app/keys.h"
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

}  // namespace

int runViewer(const ViewerOptions& o) {
  requireDisplay();  // before a load that may take a while
  auto primary = loadNamed(o.run, o);
  std::unique_ptr<LoadedRun> compare;
  if (!o.compare.empty()) compare = loadNamed(o.compare, o);
  ViewerState s;
  initState(s, std::move(primary), std::move(compare), o);

  const bool headless = !o.screenshot.empty();
  Window w(o.width, o.height, "bubblescope view - " + o.run, !headless, !headless);
  if (headless) return screenshot(w, s, o);

  uint64_t seen = ~uint64_t{0};
  int extraFrames = 0;
  auto last = std::chrono::steady_clock::now();
  while (!w.shouldClose()) {
    const bool moving = animating(s);
    w.waitEvents(moving || extraFrames > 0 ? 0 : kIdleWaitSeconds);
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

}  // namespace bubblescope::gui
