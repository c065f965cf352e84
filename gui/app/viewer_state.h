#pragma once
// What the window shows and where the user is: the runs, one pane per run, the shared view, the
// selection, the search. The toolbar, the panes and the side panel read and change it.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gui/app/session.h"
#include "gui/draw/draw_records.h"
#include "gui/draw/hang_records.h"
#include "gui/draw/row_layout.h"
#include "gui/model/live_follow.h"
#include "gui/model/range_stats.h"
#include "gui/model/search.h"
#include "gui/timeline/frame_geometry.h"
#include "gui/timeline/time_mapping.h"

namespace bubblescope::gui {

// A pane: one run's pipeline on the timeline.
struct Pane {
  LoadedRun* run = nullptr;
  int pipeline = 0;  // DP replica: index into PipelineResult / PipelineRows
  int step = 0;      // the selected (or aligned) step: index into steps
  std::vector<bool> expanded;
  double scroll = 0;
  SearchResult search;

  // Recomputed every frame.
  TimeMapping mapping;
  RowLayout layout;
  DrawRecords records;
  HangRecords hangRecords;

  const PipelineRows& rows() const { return run->model.pipelines[pipeline]; }
  const analysis::PipelineResult& result() const { return run->result.pipelines[pipeline]; }
  // The hang's marks on this replica; null when the run ended cleanly.
  const PipelineHang* hang() const;
  TimeNs origin() const;  // the step's start: times are shown from it
  void selectPipeline(int index);
};

// A box the user clicked: what it is, for the side panel.
struct PickedBox {
  int pane = 0;
  std::string text;
  TimeNs start = 0, end = 0;
};

enum class DragMode { None, Pan, Select };

class LiveSession;

// view --attach: the job followed, whether the view follows its newest step, and the newest
// window held back while the user looks elsewhere.
struct LiveState {
  LiveSession* session = nullptr;  // owned by runViewer; null: a recorded run
  LiveFollow follow;
  std::unique_ptr<LoadedRun> pending;
  int64_t stepsShown = 0;  // steps finished since attaching that were shown
};

struct ViewerState {
  std::unique_ptr<LoadedRun> primary, compare;
  std::vector<Pane> panes;        // [0]: the run; [1]: the compared run
  TimeMapping view;               // pane 0's view; pane 1 shows it shifted by the steps' offset
  std::optional<Interval> range;  // the selected range on pane 0's clock
  std::optional<PickedBox> picked;
  bool wholeRun = false;  // side panel figures for all steps rather than the selected one
  bool showArrows = true;
  bool showHang = true;  // a hung run's open boxes and wait-for arrows
  bool showPanel = true;
  char searchText[256] = {};
  std::string message;  // an error to show until dismissed (a failed compare load)
  BackgroundLoad loading;
  char comparePath[1024] = {};
  RunLoader load;
  analysis::AnalyzeOptions analyzeOptions;
  LiveState live;
  RecordStyle style;

  // Search navigation: the start of the match last jumped to (pane 0's clock).
  TimeNs searchCursor = INT64_MIN;
  bool focusSearch = false;

  // The selected range's statistics, recomputed when the range or the replica changes.
  std::optional<RangeStats> rangeStats;
  Interval rangeStatsKey;
  int rangeStatsPipeline = -1;

  // Interaction in progress.
  DragMode drag = DragMode::None;
  int dragPane = 0;
  TimeNs dragStart = 0;

  // Figures of the last frame (the benchmark reads them).
  double preprocessMs = 0;
  size_t boxes = 0;

  // The offset of pane `i`'s clock from pane 0's at the aligned steps.
  TimeNs paneOffset(size_t i) const;
  Interval extent() const;  // pane 0's data
  // Fits the view to pane 0's selected step.
  void fitStep();
  void selectStep(int step);
  void setCompare(std::unique_ptr<LoadedRun> run, std::optional<int64_t> stepNumber);
  void rerunSearch();
  // Shows [start, end) of pane `pane`'s clock: centred at the current zoom when it fits, else
  // fitted; the stage's detail rows opened and scrolled to when `row` is one.
  void reveal(size_t pane, TimeNs start, TimeNs end, int stage, int row);
};

}  // namespace bubblescope::gui
