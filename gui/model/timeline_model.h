#pragma once
// What the viewer shows of one analysed run, as rows of lanes (gui/timeline/track.h): per
// pipeline (DP replica) one group per stage with its ops, the idle gaps between them, the ideal
// schedule as a ghost row repeated at every step's start, and detail rows from the raw trace of
// the stage's ranks (GPU streams, NCCL calls, CUDA API calls, NVTX ranges by nesting depth).
// Built once per run; times are clock-aligned like the analysis.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "analyzer/result/result.h"
#include "gui/timeline/kind_totals.h"
#include "gui/timeline/track.h"
#include "traces/model/trace.h"

namespace bubblescope::gui {

enum class RowKind : uint8_t {
  Ops,     // items: indexes into PipelineResult::ops
  Ideal,   // items: step * idealOps.size() + index into PipelineResult::idealOps
  Stream,  // items: StreamItem (kernels, memcpys, memsets of one GPU stream)
  Nccl,    // items: indexes into RankTrace::ncclCalls (one host thread)
  Api,     // items: indexes into RankTrace::apiCalls (one host thread)
  Nvtx,    // items: indexes into RankTrace::ranges (one host thread, a lane per depth)
};

// A stream row's item: which table, and the index in it.
enum class StreamTable : uint8_t { Kernel = 0, Memcpy = 1, Memset = 2 };
inline constexpr uint32_t kStreamIndexBits = 30;
inline uint32_t streamItem(StreamTable t, size_t index) {
  return static_cast<uint32_t>(t) << kStreamIndexBits | static_cast<uint32_t>(index);
}
inline StreamTable streamTableOf(uint32_t item) {
  return static_cast<StreamTable>(item >> kStreamIndexBits);
}
inline uint32_t streamIndexOf(uint32_t item) {
  return item & ((1u << kStreamIndexBits) - 1);
}

struct Row {
  RowKind kind = RowKind::Ops;
  std::string label;
  int rank = -1;          // index into Run::ranks (detail rows)
  uint32_t laneBase = 0;  // id of lanes[0] among the pipeline's lanes (search results)
  std::vector<Track> lanes;
  // Ops and Ideal rows: per lane, its time by op kind (folded boxes take the dominant kind).
  std::vector<KindTotals> totals;

  size_t events() const;
};

struct StageRows {
  int stage = 0;
  int rank = 0;  // the representative, index into Run::ranks
  std::string label;
  Row ops;
  Track gaps;            // items: indexes into PipelineResult::gaps
  KindTotals gapTotals;  // the gaps' idle time by class
  Row ideal;
  std::vector<Row> detail;
};

struct PipelineRows {
  const analysis::PipelineResult* result = nullptr;
  std::vector<StageRows> stages;
  std::vector<uint32_t> transfers;  // indexes into result->transfers, by send start
  // In the same order: each transfer's send start and the last moment it reaches (recv or send
  // end), so finding the visible ones reads two arrays in order instead of the transfers.
  std::vector<TimeNs> transferSend, transferReach;
  TimeNs longestTransfer = 0;  // recv end - send start, to find the visible ones
  // NCCL kernels drawn as their wait and transfer: (rank << 32 | kernel) -> index into
  // result->commWaits, sorted.
  std::vector<std::pair<uint64_t, uint32_t>> commWaitIndex;
  uint32_t lanes = 0;          // lane ids in use
  Interval extent;             // first to last event drawn

  // The transfers that reach into [from, to), by send start.
  std::vector<uint32_t> visibleTransfers(TimeNs from, TimeNs to) const;
  // How many transfers reach into [from, to); the first `keep` of them (by send start) go to
  // `out`. Zoomed out, a frame only needs to know there are too many to draw.
  size_t visibleTransfers(TimeNs from, TimeNs to, size_t keep, std::vector<uint32_t>& out) const;
  // The wait of kernel `kernel` of rank `rank` (index into the run), or null when it did not
  // wait in an analysed gap.
  const analysis::CommWait* commWaitOf(int rank, uint32_t kernel) const;
};

struct TimelineModel {
  const traces::Run* run = nullptr;
  const analysis::AnalysisResult* result = nullptr;
  std::vector<PipelineRows> pipelines;

  // Added to a rank's raw times to put them on the analysis' aligned clock.
  TimeNs clockOffset(int rank) const;
};

// The rows of every pipeline; `run` and `result` must outlive the model.
TimelineModel buildTimelineModel(const traces::Run& run, const analysis::AnalysisResult& result);

// Lane id -> (row, lane) lookups for one pipeline.
struct LaneRef {
  int stage = -1;
  int row = -1;  // -1: the ops row, -2: the ideal row, else the detail row
  int lane = 0;
};
const Row* rowOf(const StageRows& s, int row);
LaneRef laneRef(const PipelineRows& p, uint32_t laneId);

}  // namespace bubblescope::gui
