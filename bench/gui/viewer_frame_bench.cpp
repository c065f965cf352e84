// Frame times of the viewer at scale: a 64-stage 1F1B job (64 ranks) with ~10 M compute kernels
// inside its ops plus an NCCL kernel per send, analysed and laid out as `bubblescope view` does,
// then drawn in the real window (GLFW + OpenGL 3; Mesa's software rasteriser under xvfb-run) with
// the whole run in view and zoomed, stage rows only and every kernel row open. Reports the load
// (analysis + timeline rows) and, per view, the median, p95 and worst wall time of a whole frame
// (built, rendered, finished) and its CPU time (Mesa's rasteriser threads included).
//
//   xvfb-run -a -s "-screen 0 1600x900x24" build/bench/gui/viewer_frame_bench [kernels] [frames]
//   xvfb-run -a -s "-screen 0 1600x900x24" build/bench/gui/viewer_frame_bench RUN [frames]
// With 0 frames it stops after the load and its peak memory, and needs no display.
// The second form loads a run (a directory, Kineto/Chrome JSON, NDTimeline, nsys) as
// `bubblescope view RUN` does instead of making the synthetic one.
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "gui/app/session.h"
#include "gui/app/viewer_frame.h"
#include "gui/app/window.h"
#include "tests/analyzer/synthetic_run.h"
#include "tests/gui/viewer_fixtures.h"
#include "traces/import/run_import.h"

namespace bubblescope {
namespace {

constexpr int kStages = 64, kMicrobatches = 64, kSteps = 16;
constexpr int kWidth = 1600, kHeight = 900;

double seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double cpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

double percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())))];
}

struct View {
  const char* name;
  bool expanded;
  double spanFraction;  // of the whole run; 0: one step
  double spanMs;        // when > 0: a fixed span in the middle of the run
  bool panel = true;    // the side panel shown
  bool empty = false;   // nothing drawn: the floor of clearing and presenting a frame
  bool hang = false;    // a hung run's opening view; skipped for a clean run
  bool hangMarks = true;  // with its marks drawn (the toolbar's `hang`)
};

// Draws `frames` frames of the view, panning a little each frame so nothing is reused.
void measure(gui::Window& w, gui::ViewerState& s, const View& v, int frames) {
  const Interval all = s.extent();
  TimeNs span = all.end - all.start;
  if (v.spanMs > 0) {
    span = static_cast<TimeNs>(v.spanMs * 1e6);
  } else if (v.spanFraction == 0 && !s.panes[0].result().steps.empty()) {
    const auto& steps = s.panes[0].result().steps;
    const auto& st = steps[steps.size() / 2];
    span = st.end - st.start;
  }
  TimeNs mid = all.start + (all.end - all.start) / 2;
  if (v.hang) {
    const gui::PipelineHang* h = s.panes[0].hang();
    if (!h) return;
    span = h->focus.end - h->focus.start;
    mid = h->focus.start + span / 2;
  }
  for (auto& p : s.panes) p.expanded.assign(p.rows().stages.size(), v.expanded);
  s.showPanel = v.panel;
  s.showHang = v.hangMarks;
  std::vector<double> wall, cpu, prep;
  size_t boxes = 0;
  for (int i = -3; i < frames; ++i) {  // three frames to settle ImGui's layout
    const TimeNs shift = (i % 8) * span / 200;
    s.view = gui::fitTo(s.view, mid - span / 2 + shift, mid + span / 2 + shift, 0);
    const double t0 = seconds(), c0 = cpuSeconds();
    w.waitEvents(0);
    w.beginFrame();
    if (!v.empty) gui::drawFrame(s, kWidth, kHeight, 1.0 / 60);
    s.preprocessMs = v.empty ? 0 : s.preprocessMs;
    w.render();
    w.present();
    w.finish();
    if (i < 0) continue;
    wall.push_back((seconds() - t0) * 1e3);
    cpu.push_back((cpuSeconds() - c0) * 1e3);
    prep.push_back(s.preprocessMs);
    boxes = v.empty ? 0 : s.boxes;
  }
  std::printf("%-34s %8.2f %8.2f %8.2f %8.2f %8.2f %9zu\n", v.name, percentile(wall, 0.5),
              percentile(wall, 0.95), percentile(wall, 1.0), percentile(cpu, 0.5),
              percentile(prep, 0.5), boxes);
}

// Peak resident memory of this process so far, bytes.
double peakRssBytes() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) * 1024.0;  // kilobytes on Linux
}

size_t gSyntheticEvents = 0;  // the synthetic run's kernel events, for bytes per event

// The synthetic 64-stage run with `kernels` kernels, analysed and laid out.
std::unique_ptr<gui::LoadedRun> syntheticRun(long kernels) {
  const long ops = static_cast<long>(kStages) * kSteps * 2 * kMicrobatches;  // F and BW
  const int perOp = static_cast<int>(std::max(1L, kernels / ops));

  const double t = seconds();
  testing::SyntheticJob job;
  job.schedule = engine::Schedule::oneF1B(kStages, kMicrobatches);
  job.steps = kSteps;
  traces::Run run = testing::synthesize(job);
  testing::addKernels(run, perOp);
  size_t events = 0;
  for (const auto& r : run.ranks) events += r.kernels->size();
  gSyntheticEvents = events;
  std::printf("%d ranks, %zu kernel events (%d per op), %d steps: made in %.1f s\n", kStages,
              events, perOp, kSteps, seconds() - t);

  return gui::analyzeLoaded("synthetic", std::move(run), {});
}

int run(int argc, char** argv) {
  const std::string first = argc > 1 ? argv[1] : "";
  const bool fromFile = !first.empty() && first.find_first_not_of("0123456789") != std::string::npos;
  const int frames = argc > 2 ? std::atoi(argv[2]) : 60;
  const double t = seconds();
  const double c = cpuSeconds();
  auto loaded = fromFile ? gui::loadRun(first,
                                        [](const std::string& path) {
                                          return traces::import::loadAnyRun({path});
                                        },
                                        {})
                         : syntheticRun(first.empty() ? 10'000'000 : std::atol(first.c_str()));
  std::printf(
      "load: hang analysis %.2f s + analysis %.2f s + timeline rows %.2f s = %.2f s wall (%.2f s "
      "CPU)%s\n",
      loaded->hangSeconds, loaded->analyzeSeconds, loaded->modelSeconds, seconds() - t,
      cpuSeconds() - c, loaded->hangOverlay.found ? "; the run hung: its marks are drawn" : "");
  // The generated run counts: it is the input, held as a loaded run holds it.
  const double peak = peakRssBytes();
  if (gSyntheticEvents > 0) {
    std::printf("peak RSS after load: %.0f MiB, %.1f B per kernel event\n", peak / 1048576.0,
                peak / static_cast<double>(gSyntheticEvents));
  } else {
    std::printf("peak RSS after load: %.0f MiB\n", peak / 1048576.0);
  }

  if (frames == 0) return 0;  // the load alone: for a memory profiler, no window needed

  gui::ViewerState s;
  gui::ViewerOptions o;
  o.width = kWidth;
  o.height = kHeight;
  gui::initState(s, std::move(loaded), nullptr, o);
  gui::Window w(kWidth, kHeight, "viewer_frame_bench", false, false);
  std::printf("GL: %s, window %dx%d\n\n", w.glVersion().c_str(), w.width(), w.height());
  std::printf("%-34s %8s %8s %8s %8s %8s %9s\n", "view (frame ms)", "median", "p95", "max", "cpu",
              "records", "boxes");
  const View views[] = {
      {"whole run, stage rows", false, 1, 0},
      {"whole run, all rows open", true, 1, 0},
      {"one step, all rows open", true, 0, 0},
      {"2 ms, all rows open", true, 0, 2},
      {"whole run, stage rows, no panel", false, 1, 0, false},
      {"empty frame (clear + present)", false, 1, 0, false, true},
      {"a hung run's opening view", false, 0, 0, true, false, true},
      {"the same, its marks hidden", false, 0, 0, true, false, true, false},
  };
  for (const View& v : views) measure(w, s, v, frames);
  return 0;
}

}  // namespace
}  // namespace bubblescope

int main(int argc, char** argv) {
  try {
    return bubblescope::run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "viewer_frame_bench: %s\n", e.what());
    return 1;
  }
}
