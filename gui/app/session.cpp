#include "gui/app/session.h"

#include "analyzer/hang/hang_analysis.h"
#include "gui/model/rank_rows.h"

namespace bubblescope::gui {
namespace {

double secondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

std::unique_ptr<LoadedRun> analyzeLoaded(std::string path, traces::Run run,
                                         const analysis::AnalyzeOptions& options, bool running) {
  auto out = std::make_unique<LoadedRun>();
  out->path = std::move(path);
  out->run = std::move(run);
  auto t = std::chrono::steady_clock::now();
  std::string hangError;
  try {
    if (!running) out->hang = analysis::hang::analyzeHang(out->run);
  } catch (const std::exception& e) {
    // The marks are an addition: a run the viewer can show is shown without them, and says why.
    hangError = std::string("the hang analysis failed, so no hang is marked: ") + e.what();
  }
  out->hangSeconds = secondsSince(t);
  t = std::chrono::steady_clock::now();
  out->result = analyzeForView(out->run, out->hang, options);
  if (!hangError.empty()) out->result.warnings.push_back(hangError);
  out->analyzeSeconds = secondsSince(t);
  t = std::chrono::steady_clock::now();
  out->model = buildTimelineModel(out->run, out->result);
  out->hangOverlay = buildHangOverlay(out->hang, out->model);
  extendToLastSeen(out->model, out->hangOverlay);
  out->modelSeconds = secondsSince(t);
  return out;
}

std::unique_ptr<LoadedRun> loadRun(const std::string& path, const RunLoader& load,
                                   const analysis::AnalyzeOptions& options) {
  const auto t = std::chrono::steady_clock::now();
  traces::Run run = load(path);
  const double loaded = secondsSince(t);
  auto out = analyzeLoaded(path, std::move(run), options);
  out->loadSeconds = loaded;
  return out;
}

void BackgroundLoad::start(const std::string& path, const RunLoader& load,
                           const analysis::AnalyzeOptions& o) {
  path_ = path;
  future_ = std::async(std::launch::async, [path, load, o] { return loadRun(path, load, o); });
}

std::unique_ptr<LoadedRun> BackgroundLoad::poll() {
  if (!future_.valid()) return nullptr;
  if (future_.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return nullptr;
  return future_.get();  // rethrows the load's error; the future is then empty
}

}  // namespace bubblescope::gui
