#include "gui/draw/draw_records.h"

#include <algorithm>
#include <string_view>

#include "gui/model/item_text.h"
#include "gui/timeline/pixel_spans.h"
#include "gui/timeline/ruler.h"

namespace bubblescope::gui {
namespace {

// Back-to-back boxes at least this wide give up their last pixel so they read as separate.
constexpr double kSeparatedBoxPx = 4;
// Uncovered pieces narrower than this are not drawn (they light no pixel of their own).
constexpr double kMinPiecePx = 1;

struct Ctx {
  const TimelineModel& model;
  const PipelineRows& p;
  const TimeMapping& m;
  const RecordStyle& style;
  const SearchResult* search;
  DrawRecords& out;
};

// Pixels of [start, end), clipped to just outside the plot so no float is ever huge, at least
// one pixel wide so nothing in view vanishes.
std::pair<double, double> pixels(const TimeMapping& m, TimeNs start, TimeNs end) {
  const double lo = m.x0 - 2, hi = m.x0 + m.width + 2;
  double a = std::clamp(m.x(start), lo, hi);
  double b = std::clamp(m.x(end), lo, hi);
  if (b - a < 1) b = a + 1;
  return {a, b};
}

bool startsWithNoCase(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && containsNoCase(s.substr(0, prefix.size()), prefix);
}

std::string_view firstWord(std::string_view s) {
  const size_t space = s.find(' ');
  return space == std::string_view::npos ? s : s.substr(0, space);
}

Rgba detailColor(const TimelineModel& model, const Row& row, uint32_t item) {
  const traces::RankTrace& t = model.run->ranks[row.rank];
  switch (row.kind) {
    case RowKind::Stream:
      switch (streamTableOf(item)) {
        case StreamTable::Kernel: {
          const auto name = t.strings.at(t.kernels->name[streamIndexOf(item)]);
          return startsWithNoCase(name, "nccl") ? commKernelColor() : computeKernelColor();
        }
        case StreamTable::Memcpy:
          return memcpyColor();
        case StreamTable::Memset:
          return memsetColor();
      }
      return computeKernelColor();
    case RowKind::Nccl:
      return commKernelColor();
    case RowKind::Api:
      return rgba(0x6b, 0x72, 0x80);
    case RowKind::Nvtx:
      // By the name's first word: every "F mb=..." range shares a color.
      return nvtxColor(firstWord(t.strings.at(t.ranges->name[item])));
    default:
      return computeKernelColor();
  }
}

void pushBox(Ctx& c, const LodBox& b, double y0, double y1, uint16_t row, uint16_t lane,
             uint8_t flags, Rgba fill, std::string label) {
  auto [x0, x1] = pixels(c.m, b.start, b.end);
  if (x1 - x0 >= kSeparatedBoxPx) x1 -= 1;
  DrawBox d;
  d.x0 = static_cast<float>(x0);
  d.x1 = static_cast<float>(x1);
  d.y0 = static_cast<float>(y0);
  d.y1 = static_cast<float>(y1);
  d.fill = fill;
  d.first = static_cast<uint32_t>(b.first);
  d.count = static_cast<uint32_t>(b.count());
  d.row = row;
  d.lane = lane;
  d.flags = flags | (b.folded() ? kBoxFolded : 0);
  d.label = std::move(label);
  c.out.boxes.push_back(std::move(d));
}

double labelRoom(const Ctx& c, const LodBox& b) {
  auto [x0, x1] = pixels(c.m, b.start, b.end);
  return x1 - x0 - c.style.labelPad;
}

std::string countLabel(const Ctx& c, const LodBox& b) {
  return fitLabel(std::to_string(b.count()), labelRoom(c, b), c.style.charW);
}

// The pixels every lane of a row's boxes [from, end) covers.
std::vector<PixelSpan> coverOf(const std::vector<DrawBox>& boxes, size_t from, size_t lanes) {
  std::vector<std::vector<PixelSpan>> perLane(lanes);
  for (size_t i = from; i < boxes.size(); ++i) {
    if (boxes[i].lane < lanes) perLane[boxes[i].lane].push_back({boxes[i].x0, boxes[i].x1});
  }
  for (auto& l : perLane) l = unionOf(std::move(l));
  return intersectionOf(perLane);
}

void gapBoxes(Ctx& c, const StageRows& sr, const PlacedRow& pr, uint16_t rowIndex,
              const std::vector<PixelSpan>& cover, std::vector<LodBox>& lod) {
  lod.clear();
  foldVisible(sr.gaps, c.m, c.style.minBoxPx, lod);
  const auto& gaps = c.p.result->gaps;
  for (const LodBox& b : lod) {
    const auto dominant = b.folded() ? analysis::idleClassAt(sr.gapTotals.dominant(b.first, b.last))
                                     : gaps[sr.gaps.item[b.first]].dominant;
    const std::string label =
        b.folded() ? ""
                   : fitLabel(analysis::idleClassName(dominant), labelRoom(c, b), c.style.charW);
    pushBox(c, b, pr.y, pr.y + pr.h, rowIndex, kGapLane, kBoxIdle, idleColor(dominant), label);
    // Only the pieces the op boxes leave uncovered are kept; the label stays on a gap drawn whole.
    const DrawBox whole = c.out.boxes.back();
    const auto pieces = uncovered({whole.x0, whole.x1}, cover, kMinPiecePx);
    if (pieces.size() == 1 && pieces[0].x0 == whole.x0 && pieces[0].x1 == whole.x1) continue;
    c.out.boxes.pop_back();
    for (const PixelSpan& piece : pieces) {
      DrawBox d = whole;
      d.x0 = static_cast<float>(piece.x0);
      d.x1 = static_cast<float>(piece.x1);
      d.label.clear();
      c.out.boxes.push_back(std::move(d));
    }
  }
}

void addBackdrops(Ctx& c, const PlacedRow& pr, const std::vector<PixelSpan>& cover) {
  if (pr.stage % 2 == 0) return;
  for (const PixelSpan& piece : uncovered({c.m.x0, c.m.x0 + c.m.width}, cover, kMinPiecePx)) {
    c.out.backdrops.push_back({static_cast<float>(piece.x0), static_cast<float>(pr.y),
                               static_cast<float>(piece.x1), static_cast<float>(pr.y + pr.h)});
  }
}

void opBoxes(Ctx& c, const Row& row, const PlacedRow& pr, uint16_t rowIndex, bool ghost,
             std::vector<LodBox>& lod) {
  const auto& pl = *c.p.result;
  const size_t nIdeal = pl.idealOps.size();
  for (size_t l = 0; l < row.lanes.size(); ++l) {
    const Track& lane = row.lanes[l];
    const double y0 = pr.y + static_cast<double>(l) * pr.laneH;
    lod.clear();
    foldVisible(lane, c.m, c.style.minBoxPx, lod);
    for (const LodBox& b : lod) {
      const auto& first =
          ghost ? pl.idealOps[lane.item[b.first] % nIdeal] : pl.ops[lane.item[b.first]];
      analysis::OpKind kind = first.op.kind;
      std::string label;
      if (b.folded()) {
        kind = static_cast<analysis::OpKind>(row.totals[l].dominant(b.first, b.last));
        if (!ghost) label = countLabel(c, b);
      } else if (!ghost && pr.laneH >= 12) {
        label = opLabel(first.op, labelRoom(c, b), c.style.charW);
      }
      uint8_t flags = ghost ? kBoxGhost : 0;
      if (!ghost && c.search &&
          c.search->hit(row.laneBase + static_cast<uint32_t>(l), b.first, b.last)) {
        flags |= kBoxSearchHit;
      }
      pushBox(c, b, y0, y0 + pr.laneH, rowIndex, static_cast<uint16_t>(l), flags,
              ghost ? ghostColor(kind) : opColor(kind), std::move(label));
    }
  }
}

// An NCCL kernel that waited for its peers, as two boxes: the wait in the idle color of the gap
// it lies in (it is idle, analysis.md §2), then the transfer in the communication color. Both
// stand for the kernel (hover, search). False when the box is not such a kernel.
bool waitAndTransferBoxes(Ctx& c, const Row& row, const PlacedRow& pr, uint16_t rowIndex, size_t l,
                          const LodBox& b, double y0) {
  if (row.kind != RowKind::Stream) return false;
  const uint32_t item = row.lanes[l].item[b.first];
  if (streamTableOf(item) != StreamTable::Kernel) return false;
  const analysis::CommWait* w = c.p.commWaitOf(row.rank, streamIndexOf(item));
  if (!w || w->gap < 0) return false;
  const TimeNs cut = std::clamp(w->transferStart, b.start, b.end);
  uint8_t flags = 0;
  if (c.search && c.search->hit(row.laneBase + static_cast<uint32_t>(l), b.first, b.last)) {
    flags |= kBoxSearchHit;
  }
  const analysis::IdleClass cls = c.p.result->gaps[static_cast<size_t>(w->gap)].dominant;
  const auto lane = static_cast<uint16_t>(l);
  const double y1 = y0 + pr.laneH - 1;
  LodBox wait = b, transfer = b;
  wait.end = cut;
  transfer.start = cut;
  if (wait.end > wait.start) {
    pushBox(c, wait, y0, y1, rowIndex, lane, flags, idleColor(cls),
            fitLabel(std::string("wait: ") + analysis::idleClassName(cls), labelRoom(c, wait),
                     c.style.charW));
  }
  if (transfer.end > transfer.start) {
    pushBox(c, transfer, y0, y1, rowIndex, lane, flags, commKernelColor(),
            fitLabel(itemName(c.model, c.p, row, item), labelRoom(c, transfer), c.style.charW));
  }
  return true;
}

void detailBoxes(Ctx& c, const Row& row, const PlacedRow& pr, uint16_t rowIndex,
                 std::vector<LodBox>& lod) {
  for (size_t l = 0; l < row.lanes.size(); ++l) {
    const Track& lane = row.lanes[l];
    const double y0 = pr.y + static_cast<double>(l) * pr.laneH;
    lod.clear();
    foldVisible(lane, c.m, c.style.minBoxPx, lod);
    for (const LodBox& b : lod) {
      const uint32_t item = lane.item[b.first];
      if (!b.folded() && waitAndTransferBoxes(c, row, pr, rowIndex, l, b, y0)) continue;
      Rgba fill = detailColor(c.model, row, item);
      std::string label;
      if (b.folded()) {
        fill = darker(fill, 0.25);
        label = countLabel(c, b);
      } else if (labelRoom(c, b) >= 3 * c.style.charW) {
        label = fitLabel(itemName(c.model, c.p, row, item), labelRoom(c, b), c.style.charW);
      }
      uint8_t flags = 0;
      if (c.search && c.search->hit(row.laneBase + static_cast<uint32_t>(l), b.first, b.last)) {
        flags |= kBoxSearchHit;
      }
      pushBox(c, b, y0, y0 + pr.laneH - 1, rowIndex, static_cast<uint16_t>(l), flags, fill,
              std::move(label));
    }
  }
}

void arrows(Ctx& c, const RowLayout& layout) {
  if (!c.style.arrows) return;
  std::vector<uint32_t> visible;
  const size_t n = c.p.visibleTransfers(c.m.start, c.m.end, c.style.maxArrows, visible);
  if (n > c.style.maxArrows) {
    c.out.hiddenArrows = n;
    return;
  }
  const auto& transfers = c.p.result->transfers;
  const int stages = static_cast<int>(layout.opsY.size());
  for (uint32_t i : visible) {
    const auto& t = transfers[i];
    if (t.fromStage < 0 || t.toStage < 0 || t.fromStage >= stages || t.toStage >= stages) continue;
    const bool down = t.toStage > t.fromStage;
    const double y0 = layout.opsY[t.fromStage] + (down ? layout.opsH : 0);
    const double y1 = layout.opsY[t.toStage] + (down ? 0 : layout.opsH);
    const double lo = c.m.x0 - c.m.width, hi = c.m.x0 + 2 * c.m.width;
    DrawArrow a;
    a.x0 = static_cast<float>(std::clamp(c.m.x(t.sendStart), lo, hi));
    a.x1 = static_cast<float>(std::clamp(c.m.x(t.recvEnd), lo, hi));
    a.y0 = static_cast<float>(y0);
    a.y1 = static_cast<float>(y1);
    a.color = kArrow;
    a.transfer = i;
    c.out.arrows.push_back(a);
  }
}

void stepMarks(Ctx& c) {
  const auto& steps = c.p.result->steps;
  for (size_t k = 0; k < steps.size(); ++k) {
    const auto& s = steps[k];
    if (s.end <= c.m.start || s.start >= c.m.end) continue;
    auto [x0, x1] = pixels(c.m, s.start, s.end);
    const std::string full =
        "step " + std::to_string(s.number) + "  " + formatDuration(s.duration());
    std::string label = fitLabel(full, x1 - x0 - c.style.labelPad, c.style.charW);
    if (label.empty()) label = fitLabel(std::to_string(s.number), x1 - x0, c.style.charW);
    c.out.steps.push_back(
        {static_cast<float>(x0), static_cast<float>(x1), static_cast<int>(k), std::move(label)});
  }
}

}  // namespace

void DrawRecords::clear() {
  boxes.clear();
  arrows.clear();
  hiddenArrows = 0;
  steps.clear();
  backdrops.clear();
}

void buildRecords(const TimelineModel& model, const PipelineRows& p, const RowLayout& layout,
                  const TimeMapping& m, const RecordStyle& style, const SearchResult* search,
                  DrawRecords& out) {
  out.clear();
  Ctx c{model, p, m, style, search, out};
  std::vector<LodBox> lod;
  for (size_t r = 0; r < layout.rows.size(); ++r) {
    const PlacedRow& pr = layout.rows[r];
    const StageRows& sr = p.stages[pr.stage];
    const auto rowIndex = static_cast<uint16_t>(r);
    const size_t first = out.boxes.size();
    if (pr.row == -1) {
      // Ops first, to know what they cover; then the gaps, moved in front to paint under them.
      opBoxes(c, sr.ops, pr, rowIndex, false, lod);
      const auto cover = coverOf(out.boxes, first, sr.ops.lanes.size());
      const size_t ops = out.boxes.size();
      gapBoxes(c, sr, pr, rowIndex, cover, lod);
      std::rotate(out.boxes.begin() + static_cast<std::ptrdiff_t>(first),
                  out.boxes.begin() + static_cast<std::ptrdiff_t>(ops), out.boxes.end());
      addBackdrops(c, pr, cover);
    } else if (pr.row == -2) {
      opBoxes(c, sr.ideal, pr, rowIndex, true, lod);
      addBackdrops(c, pr, coverOf(out.boxes, first, sr.ideal.lanes.size()));
    } else {
      detailBoxes(c, sr.detail[pr.row], pr, rowIndex, lod);
      addBackdrops(c, pr, {});  // detail boxes leave a line free under each lane
    }
  }
  arrows(c, layout);
  stepMarks(c);
}

const DrawBox* boxAt(const DrawRecords& records, double x, double y) {
  for (auto it = records.boxes.rbegin(); it != records.boxes.rend(); ++it) {
    if (x >= it->x0 && x < it->x1 + 1 && y >= it->y0 && y < it->y1) return &*it;
  }
  return nullptr;
}

const Track* laneOfBox(const PipelineRows& p, const RowLayout& layout, const DrawBox& box) {
  if (box.lane == kGapLane || box.row >= layout.rows.size()) return nullptr;
  const PlacedRow& pr = layout.rows[box.row];
  const Row* row = rowOf(p.stages[pr.stage], pr.row);
  return row && box.lane < row->lanes.size() ? &row->lanes[box.lane] : nullptr;
}

}  // namespace bubblescope::gui
