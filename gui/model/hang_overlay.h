#pragma once
// What the viewer marks on a run that hung (docs/hang.md): `bubblescope hang`'s report laid onto
// the timeline's rows. Every rank's open ranges and partner-less NCCL calls become boxes running to
// its last sign of life, with a mark where it was last seen; the wait-for graph's edges become
// arrows from the waiting stage's row, at the wait's start, to the row of the stage it waits on.
// Built once per run from the report and the model; times on the timeline's aligned clock.
#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/hang/hang.h"
#include "gui/model/timeline_model.h"

namespace bubblescope::gui {

enum class HangMarkKind : uint8_t {
  OpenRange,  // a range still open (an op, the RECV it is blocked in): its start to last seen
  NcclWait,   // an NCCL call whose partner never came: posted to last seen
  Unwound,    // a RECV the rank left by an exception as its peer vanished: its start to the unwind
  Stopped,    // waits on nobody and has nothing open but the step: last op's end to last seen
};

struct HangMark {
  HangMarkKind kind = HangMarkKind::OpenRange;
  int stage = 0;  // index into PipelineRows::stages
  int rank = 0;   // index into the run and HangReport::ranks
  TimeNs start = 0, end = 0;
  std::string what;  // the range or call: "RECV B mb=3 from=2"; "" for a stop
  std::string tag;   // drawn in the box: "open 1.52 s: RECV B mb=3 from=2", "stopped 1.52 s"
  std::string text;  // hover: what it is, since when, what it waits for
};

struct LastSeenMark {
  int stage = 0;
  int rank = 0;
  TimeNs at = 0;
  std::string text;
};

struct WaitArrow {
  int edge = 0;                    // index into HangReport::edges
  int fromStage = 0, toStage = 0;  // indexes into PipelineRows::stages
  TimeNs at = 0;                   // when the waiting rank began to wait
  std::string text;
};

struct PipelineHang {
  std::vector<HangMark> marks;  // by stage, then start
  std::vector<LastSeenMark> lastSeen;
  std::vector<WaitArrow> arrows;
  // Where a hung run opens: the hung step's start to a quarter past the last wait's start, so the
  // ops before the hang, every wait's start and the open boxes running on are in view.
  Interval focus;
  TimeNs latestSeen = 0;  // the latest last-seen time (0: no mark)
  bool empty() const { return marks.empty() && lastSeen.empty() && arrows.empty(); }
};

struct HangOverlay {
  bool found = false;     // the hang analysis found a hang or mismatch
  std::string verdict;    // "deadlock", ...
  std::string diagnosis;  // the first line of `bubblescope hang`
  std::vector<std::string> details;
  std::vector<PipelineHang> pipelines;  // parallel to TimelineModel::pipelines
};

// The marks of `report` on `model` (whose run is the report's). A clean report gives no marks.
HangOverlay buildHangOverlay(const analysis::hang::HangReport& report, const TimelineModel& model);

// Widens each pipeline's extent to its ranks' last sign of life, so the whole hang can be fitted.
void extendToLastSeen(TimelineModel& model, const HangOverlay& overlay);

}  // namespace bubblescope::gui
