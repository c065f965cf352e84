// bubblescope view: the desktop timeline viewer (gui/, docs/viewer.md) over a run and, with
// --compare, a second one, or with --attach over a job running now; --screenshot renders one
// frame to a PNG and exits. Builds without the viewer keep the command and say how to get it.
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/cmd_view.h"
#include "cli/exit_codes.h"
#include "cli/run_loading.h"
#include "cli/self_exe.h"
#include "cli/usage_error.h"
#include "cli/view_attach.h"
#if BUBBLESCOPE_HAVE_VIEWER
#include "gui/app/viewer.h"
#endif

namespace bubblescope::cli {
namespace {

// A finite number: "0:inf" is no range to show.
bool parseDouble(const std::string& s, double* out) {
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && ptr == s.data() + s.size() && std::isfinite(*out);
}

// "A:B" in ms from the step's start, A < B.
std::pair<double, double> parseRangeMs(const std::string& spec) {
  const auto colon = spec.find(':');
  double a = 0, b = 0;
  if (colon == std::string::npos || !parseDouble(spec.substr(0, colon), &a) ||
      !parseDouble(spec.substr(colon + 1), &b) || !(a < b)) {
    throw UsageError("--range '" + spec +
                     "' is not A:B in ms from the step's start with A < B (e.g. 0:25.5)");
  }
  return {a, b};
}

// "WxH", each within what a screen (or an Xvfb one) can hold.
std::pair<int, int> parseSize(const std::string& spec) {
  const auto x = spec.find('x');
  int w = 0, h = 0;
  const auto parse = [](const std::string& s, int* v) {
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *v);
    return ec == std::errc() && ptr == s.data() + s.size();
  };
  if (x == std::string::npos || !parse(spec.substr(0, x), &w) || !parse(spec.substr(x + 1), &h) ||
      w < 640 || h < 400 || w > 8192 || h > 8192) {
    throw UsageError("--size '" + spec + "' is not WxH between 640x400 and 8192x8192");
  }
  return {w, h};
}

bool haveDisplay() {
  for (const char* var : {"DISPLAY", "WAYLAND_DISPLAY"}) {
    const char* v = std::getenv(var);
    if (v && *v) return true;
  }
  return false;
}

std::string findOnPath(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  for (size_t at = 0; at <= dirs.size();) {
    const size_t end = std::min(dirs.find(':', at), dirs.size());
    const std::string file = dirs.substr(at, end - at) + "/" + name;
    if (end > at && access(file.c_str(), X_OK) == 0) return file;
    at = end + 1;
  }
  return "";
}

// A screenshot needs no screen: with no display, the same command runs again under xvfb-run (a
// virtual X server, Mesa's software GL), so `view RUN --screenshot out.png` works on a server.
// Returns the child's exit code, or nothing when there is a display or no xvfb-run.
std::optional<int> screenshotUnderXvfb(const ViewOptions& o) {
  if (o.screenshot.empty() || haveDisplay() || std::getenv("BUBBLESCOPE_VIEW_UNDER_XVFB")) {
    return std::nullopt;
  }
  const std::string xvfb = findOnPath("xvfb-run");
  if (xvfb.empty()) return std::nullopt;
  const auto [w, h] = parseSize(o.size);
  std::vector<std::string> argv = {
      xvfb,
      "-a",
      "-s",
      "-screen 0 " + std::to_string(w) + "x" + std::to_string(h) + "x24",
      selfExecutable(),
      "view",
      "--screenshot",
      o.screenshot,
      "--size",
      o.size,
      "--dp",
      std::to_string(o.dp)};
  const auto add = [&argv](const std::string& flag, const std::string& value) {
    if (!value.empty()) argv.push_back(flag + "=" + value);  // "=": a range may start with "-"
  };
  if (!o.run.empty()) argv.insert(argv.begin() + 6, o.run);
  if (o.attach) {
    argv.push_back("--attach");
    if (o.targets.all) argv.push_back("--all");
    for (int64_t pid : o.targets.pids) add("--pid", std::to_string(pid));
    add("--run-id", o.targets.runId);
    add("--keep", o.keepSeconds > 0 ? std::to_string(o.keepSeconds) : "");
    add("--after-steps", o.afterSteps > 0 ? std::to_string(o.afterSteps) : "");
  }
  add("--compare", o.compare);
  add("--step", o.step ? std::to_string(*o.step) : "");
  add("--compare-step", o.compareStep ? std::to_string(*o.compareStep) : "");
  add("--range", o.range);
  if (o.expand) argv.push_back("--expand");
  appendAnalysisArgs(o.analysis, argv);
  setenv("BUBBLESCOPE_VIEW_UNDER_XVFB", "1", 1);  // the child must not try again
  const int code = runChild(argv);
  // xvfb-run exits 1 when its X server did not start (it has said why above); view itself never
  // exits 1, the code `check` gives a regression. The screenshot was not taken: an environment
  // failure, not the user's input.
  if (code == kCheckFailed) {
    std::cerr << "bubblescope: view: Xvfb could not start a virtual display for the screenshot ("
              << xvfb << " failed; its message is above), so " << o.screenshot
              << " was not written\n";
    return kInternalError;
  }
  return code;
}

// A recorded run or a running job, and only the options that fit it.
void checkSource(const ViewOptions& o) {
  const bool targeted = o.targets.all || !o.targets.pids.empty() || !o.targets.runId.empty() ||
                        o.keepSeconds > 0 || o.afterSteps > 0;
  if (!o.attach) {
    if (targeted) {
      throw UsageError(
          "view: --all, --pid, --run-id, --keep and --after-steps are for --attach (a job "
          "running now)");
    }
    if (o.run.empty()) {
      throw UsageError("view: give a run to open, or --attach for a job running now");
    }
    return;
  }
  if (!o.run.empty()) throw UsageError("view: give a recorded run or --attach, not both");
  if (!o.compare.empty() || o.step || o.compareStep || !o.range.empty() ||
      !o.analysis.steps.empty()) {
    throw UsageError(
        "view: --compare, --step, --compare-step, --range and --steps are for a recorded run; "
        "--attach shows the newest steps");
  }
  if (o.afterSteps > 0 && o.screenshot.empty()) {
    throw UsageError("view: --after-steps is for --screenshot with --attach");
  }
  if (o.targets.all && !o.targets.pids.empty()) {
    throw UsageError("view: give --all or --pid, not both");
  }
}

}  // namespace

int runView(const ViewOptions& o) {
  checkSource(o);
#if BUBBLESCOPE_HAVE_VIEWER
  if (const auto code = screenshotUnderXvfb(o)) return *code;
  gui::ViewerOptions v;
  v.run = o.run;
  v.compare = o.compare;
  v.step = o.step;
  v.compareStep = o.compareStep;
  if (!o.range.empty()) v.rangeMs = parseRangeMs(o.range);
  v.screenshot = o.screenshot;
  std::tie(v.width, v.height) = parseSize(o.size);
  v.dp = o.dp;
  v.expandAll = o.expand;
  v.load = [](const std::string& path) { return loadRun({path}); };
  v.analyze = analyzeOptions(o.analysis, WarmupStep::Shown);
  if (o.attach) {
    TargetArgs targets = o.targets;
    targets.all = targets.pids.empty();  // --attach alone: every process (of --run-id's run)
    std::optional<gui::LiveFeed> feed = attachFeed(targets, o.keepSeconds, v.analyze);
    if (!feed) return kBadInput;  // nothing to attach to: said, a line each
    v.live = std::move(*feed);
    if (o.afterSteps > 0) v.afterSteps = o.afterSteps;
  }
  return gui::runViewer(v);
#else
  (void)o;
  (void)parseRangeMs;
  (void)screenshotUnderXvfb;
  (void)parseSize;
  throw UsageError(
      "view: this bubblescope was built without the viewer (it needs libimgui-dev and "
      "libglfw3-dev, and BUBBLESCOPE_BUILD_GUI=ON); bubblescope analyze RUN gives the report");
#endif
}

}  // namespace bubblescope::cli
