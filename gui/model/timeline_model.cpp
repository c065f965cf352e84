#include "gui/model/timeline_model.h"

#include <algorithm>
#include <limits>

#include "gui/model/raw_rows.h"

namespace bubblescope::gui {
namespace {

uint64_t waitKey(int rank, uint32_t kernel) {
  return static_cast<uint64_t>(static_cast<uint32_t>(rank)) << 32 | kernel;
}

using analysis::PipelineResult;

void widen(Interval& extent, bool& any, TimeNs a, TimeNs b) {
  if (!any) {
    extent = {a, b};
    any = true;
    return;
  }
  extent.start = std::min(extent.start, a);
  extent.end = std::max(extent.end, b);
}

void widen(Interval& extent, bool& any, const Row& row) {
  for (const Track& lane : row.lanes) {
    if (!lane.empty()) widen(extent, any, lane.start.front(), lane.end.back());
  }
}

inline constexpr int kOpKinds = 4;  // engine::OpKind: F, B, W, BW

// Each lane's time by op kind; `op` gives the op behind a lane item.
template <typename OpOf>
void addTotals(Row& r, OpOf op) {
  for (const Track& lane : r.lanes) {
    KindTotals t(kOpKinds);
    for (uint32_t item : lane.item) {
      TimeNs amounts[kOpKinds] = {};
      const auto& o = op(item);
      amounts[static_cast<int>(o.op.kind)] = o.end - o.start;
      t.push(amounts);
    }
    r.totals.push_back(std::move(t));
  }
}

Row opsRow(const PipelineResult& pl, int stage) {
  std::vector<Span> spans;
  for (size_t i = 0; i < pl.ops.size(); ++i) {
    const auto& o = pl.ops[i];
    if (o.stage == stage) spans.push_back({o.start, o.end, static_cast<uint32_t>(i)});
  }
  Row r;
  r.kind = RowKind::Ops;
  r.label = "ops";
  r.lanes = packLanes(std::move(spans));
  addTotals(r, [&](uint32_t item) -> const analysis::OpRecord& { return pl.ops[item]; });
  return r;
}

// The ideal step drawn again from every measured step's start, so each step can be held against it.
Row idealRow(const PipelineResult& pl, int stage) {
  std::vector<Span> spans;
  const size_t n = pl.idealOps.size();
  for (size_t k = 0; k < pl.steps.size(); ++k) {
    for (size_t i = 0; i < n; ++i) {
      const auto& o = pl.idealOps[i];
      if (o.stage != stage) continue;
      const TimeNs at = pl.steps[k].start;
      spans.push_back({at + o.start, at + o.end, static_cast<uint32_t>(k * n + i)});
    }
  }
  Row r;
  r.kind = RowKind::Ideal;
  r.label = "ideal";
  r.lanes = packLanes(std::move(spans));
  addTotals(r, [&](uint32_t item) -> const analysis::OpRecord& { return pl.idealOps[item % n]; });
  return r;
}

Track gapTrack(const PipelineResult& pl, int stage) {
  std::vector<Span> spans;
  for (size_t i = 0; i < pl.gaps.size(); ++i) {
    const auto& g = pl.gaps[i];
    if (g.stage == stage && g.end > g.start)
      spans.push_back({g.start, g.end, static_cast<uint32_t>(i)});
  }
  // Gaps of one stage never overlap; should they, the first lane still holds most of them.
  std::vector<Track> lanes = packLanes(std::move(spans));
  return lanes.empty() ? Track{} : std::move(lanes.front());
}

PipelineRows pipelineRows(const traces::Run& run, const analysis::AnalysisResult& result,
                          const PipelineResult& pl) {
  PipelineRows p;
  p.result = &pl;
  bool any = false;
  uint32_t laneId = 0;
  auto number = [&](Row& r) {
    r.laneBase = laneId;
    laneId += static_cast<uint32_t>(r.lanes.size());
  };
  for (size_t s = 0; s < pl.stages.size(); ++s) {
    const auto& st = pl.stages[s];
    StageRows sr;
    sr.stage = st.stage;
    sr.rank = st.rank;
    sr.label = "stage " + std::to_string(st.stage);
    sr.ops = opsRow(pl, static_cast<int>(s));
    sr.gaps = gapTrack(pl, static_cast<int>(s));
    sr.gapTotals = KindTotals(analysis::kIdleClasses);
    for (uint32_t g : sr.gaps.item) sr.gapTotals.push(pl.gaps[g].byClass.data());
    sr.ideal = idealRow(pl, static_cast<int>(s));
    for (int r : st.ranks) {
      if (r < 0 || r >= static_cast<int>(run.ranks.size())) continue;
      const TimeNs offset =
          r < static_cast<int>(result.clock.offsets.size()) ? result.clock.offsets[r] : 0;
      for (Row& row : rawRows(run.ranks[r], r, offset)) sr.detail.push_back(std::move(row));
    }
    number(sr.ops);
    number(sr.ideal);
    for (Row& row : sr.detail) number(row);
    widen(p.extent, any, sr.ops);
    widen(p.extent, any, sr.ideal);
    for (const Row& row : sr.detail) widen(p.extent, any, row);
    p.stages.push_back(std::move(sr));
  }
  for (const auto& step : pl.steps) widen(p.extent, any, step.start, step.end);
  p.lanes = laneId;

  p.transfers.resize(pl.transfers.size());
  for (size_t i = 0; i < pl.transfers.size(); ++i) {
    p.transfers[i] = static_cast<uint32_t>(i);
    p.longestTransfer =
        std::max(p.longestTransfer, pl.transfers[i].recvEnd - pl.transfers[i].sendStart);
  }
  std::stable_sort(p.transfers.begin(), p.transfers.end(), [&](uint32_t a, uint32_t b) {
    return pl.transfers[a].sendStart < pl.transfers[b].sendStart;
  });
  for (uint32_t i : p.transfers) {
    const auto& t = pl.transfers[i];
    p.transferSend.push_back(t.sendStart);
    p.transferReach.push_back(std::max(t.recvEnd, t.sendEnd));
  }
  for (size_t i = 0; i < pl.commWaits.size(); ++i) {
    p.commWaitIndex.emplace_back(waitKey(pl.commWaits[i].rank, pl.commWaits[i].kernel),
                                 static_cast<uint32_t>(i));
  }
  std::sort(p.commWaitIndex.begin(), p.commWaitIndex.end());
  if (!any) p.extent = {0, 1};
  return p;
}

}  // namespace

size_t Row::events() const {
  size_t n = 0;
  for (const Track& lane : lanes) n += lane.size();
  return n;
}

std::vector<uint32_t> PipelineRows::visibleTransfers(TimeNs from, TimeNs to) const {
  std::vector<uint32_t> out;
  visibleTransfers(from, to, transfers.size(), out);
  return out;
}

size_t PipelineRows::visibleTransfers(TimeNs from, TimeNs to, size_t keep,
                                      std::vector<uint32_t>& out) const {
  out.clear();
  // No transfer sent before from - longestTransfer reaches from.
  size_t i = static_cast<size_t>(
      std::lower_bound(transferSend.begin(), transferSend.end(), from - longestTransfer) -
      transferSend.begin());
  size_t n = 0;
  for (; i < transferSend.size() && transferSend[i] < to; ++i) {
    if (transferReach[i] <= from) continue;
    if (n++ < keep) out.push_back(transfers[i]);
  }
  return n;
}

const analysis::CommWait* PipelineRows::commWaitOf(int rank, uint32_t kernel) const {
  const uint64_t key = waitKey(rank, kernel);
  auto it = std::lower_bound(commWaitIndex.begin(), commWaitIndex.end(),
                             std::pair<uint64_t, uint32_t>{key, 0});
  return it != commWaitIndex.end() && it->first == key ? &result->commWaits[it->second] : nullptr;
}

TimeNs TimelineModel::clockOffset(int rank) const {
  if (!result || rank < 0 || rank >= static_cast<int>(result->clock.offsets.size())) return 0;
  return result->clock.offsets[rank];
}

TimelineModel buildTimelineModel(const traces::Run& run, const analysis::AnalysisResult& result) {
  TimelineModel m;
  m.run = &run;
  m.result = &result;
  for (const auto& pl : result.pipelines) m.pipelines.push_back(pipelineRows(run, result, pl));
  return m;
}

const Row* rowOf(const StageRows& s, int row) {
  if (row == -1) return &s.ops;
  if (row == -2) return &s.ideal;
  if (row >= 0 && row < static_cast<int>(s.detail.size())) return &s.detail[row];
  return nullptr;
}

LaneRef laneRef(const PipelineRows& p, uint32_t laneId) {
  for (size_t s = 0; s < p.stages.size(); ++s) {
    const StageRows& sr = p.stages[s];
    for (int row = -2; row < static_cast<int>(sr.detail.size()); ++row) {
      const Row* r = rowOf(sr, row);
      if (laneId >= r->laneBase && laneId < r->laneBase + r->lanes.size()) {
        return {static_cast<int>(s), row, static_cast<int>(laneId - r->laneBase)};
      }
    }
  }
  return {};
}

}  // namespace bubblescope::gui
