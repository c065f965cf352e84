#include "gui/draw/hang_records.h"

#include <algorithm>
#include <cmath>

#include "gui/model/item_text.h"

namespace bubblescope::gui {
namespace {

// An arrow is under the pointer this close to its line; a last-seen bar this close to it.
constexpr double kArrowHitPx = 4;
constexpr double kBarHitPx = 3;
// The last-seen bar reaches this far above and below its op row.
constexpr double kBarOverhangPx = 2;

// Clamped to just outside the plot, so no float is huge and a box running on past the view's
// edge still has its edge out of sight.
double clampX(const TimeMapping& m, TimeNs t) {
  return std::clamp(m.x(t), m.x0 - 4, m.x0 + m.width + 4);
}

bool stageOnLayout(const RowLayout& layout, int stage) {
  return stage >= 0 && stage < static_cast<int>(layout.opsY.size());
}

double distanceToSegment(double px, double py, const WaitArrowRecord& a) {
  const double dx = a.x1 - a.x0, dy = a.y1 - a.y0;
  const double len2 = dx * dx + dy * dy;
  double t = len2 > 0 ? ((px - a.x0) * dx + (py - a.y0) * dy) / len2 : 0;
  t = std::clamp(t, 0.0, 1.0);
  return std::hypot(px - (a.x0 + t * dx), py - (a.y0 + t * dy));
}

}  // namespace

void HangRecords::clear() {
  boxes.clear();
  lastSeen.clear();
  arrows.clear();
}

Rgba hangFill(HangMarkKind kind) {
  switch (kind) {
    case HangMarkKind::OpenRange:
    case HangMarkKind::NcclWait:
      return kHangOpenFill;
    case HangMarkKind::Unwound:
      return kHangUnwoundFill;
    case HangMarkKind::Stopped:
      return kHangStoppedFill;
  }
  return kHangOpenFill;
}

void buildHangRecords(const PipelineHang& hang, const RowLayout& layout, const TimeMapping& m,
                      const RecordStyle& style, HangRecords& out) {
  out.clear();
  for (size_t i = 0; i < hang.marks.size(); ++i) {
    const HangMark& k = hang.marks[i];
    if (!stageOnLayout(layout, k.stage) || k.end <= m.start || k.start >= m.end) continue;
    HangBox b;
    b.x0 = static_cast<float>(clampX(m, k.start));
    b.x1 = static_cast<float>(std::max(clampX(m, k.end), static_cast<double>(b.x0) + 2));
    b.y0 = static_cast<float>(layout.opsY[k.stage]);
    b.y1 = static_cast<float>(layout.opsY[k.stage] + layout.opsH);
    b.fill = hangFill(k.kind);
    b.hatched = k.kind == HangMarkKind::OpenRange || k.kind == HangMarkKind::NcclWait;
    b.mark = static_cast<uint32_t>(i);
    // A box begun left of the view keeps its tag in sight.
    const double from = std::max<double>(b.x0, m.x0);
    const double to = std::min<double>(b.x1, m.x0 + m.width);
    b.labelX = static_cast<float>(from + 3);
    b.label = fitLabel(k.tag, to - from - style.labelPad, style.charW);
    out.boxes.push_back(std::move(b));
  }
  for (size_t i = 0; i < hang.lastSeen.size(); ++i) {
    const LastSeenMark& k = hang.lastSeen[i];
    if (!stageOnLayout(layout, k.stage) || k.at < m.start || k.at > m.end) continue;
    LastSeenBar b;
    b.x = static_cast<float>(m.x(k.at));
    b.y0 = static_cast<float>(layout.opsY[k.stage] - kBarOverhangPx);
    b.y1 = static_cast<float>(layout.opsY[k.stage] + layout.opsH + kBarOverhangPx);
    b.mark = static_cast<uint32_t>(i);
    out.lastSeen.push_back(b);
  }
  for (size_t i = 0; i < hang.arrows.size(); ++i) {
    const WaitArrow& a = hang.arrows[i];
    if (!stageOnLayout(layout, a.fromStage) || !stageOnLayout(layout, a.toStage)) continue;
    if (a.at < m.start || a.at > m.end) continue;
    // From the middle of the waiting stage's row to the near edge of the row it waits on.
    const bool down = a.toStage > a.fromStage;
    const double x = m.x(a.at) + (down ? -kWaitArrowSpreadPx : kWaitArrowSpreadPx);
    WaitArrowRecord r;
    r.x0 = r.x1 = static_cast<float>(x);
    r.y0 = static_cast<float>(layout.opsY[a.fromStage] + layout.opsH / 2);
    r.y1 = static_cast<float>(down ? layout.opsY[a.toStage] : layout.opsY[a.toStage] + layout.opsH);
    r.arrow = static_cast<uint32_t>(i);
    out.arrows.push_back(r);
  }
}

const std::string* hangTextAt(const PipelineHang& hang, const HangRecords& records, double x,
                              double y) {
  // The nearest arrow: two waits a few ms apart between the same rows are drawn a few pixels
  // apart, and the pointer on one must not read the other's text.
  const WaitArrowRecord* nearest = nullptr;
  double best = kArrowHitPx;
  for (const WaitArrowRecord& a : records.arrows) {
    const double d = distanceToSegment(x, y, a);
    if (d > best || (nearest != nullptr && d == best)) continue;  // ties: the first drawn
    nearest = &a;
    best = d;
  }
  if (nearest) return &hang.arrows[nearest->arrow].text;
  for (const LastSeenBar& b : records.lastSeen) {
    if (std::abs(x - b.x) <= kBarHitPx && y >= b.y0 && y < b.y1) {
      return &hang.lastSeen[b.mark].text;
    }
  }
  for (auto it = records.boxes.rbegin(); it != records.boxes.rend(); ++it) {
    if (x >= it->x0 && x < it->x1 && y >= it->y0 && y < it->y1) return &hang.marks[it->mark].text;
  }
  return nullptr;
}

}  // namespace bubblescope::gui
