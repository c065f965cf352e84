#include "analyzer/report/timeline_layout.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "analyzer/report/figures.h"
#include "analyzer/report/format.h"
#include "analyzer/report/time_axis.h"

namespace bubblescope::analysis {
namespace {

// Average advance of a sans-serif character, as a fraction of the font size: enough to decide
// whether a label fits without measuring text.
constexpr double kCharWidth = 0.6;
constexpr double kLabelPadPx = 4;
// Box labels smaller than this are unreadable: thin rows carry none.
constexpr double kMinLabelFont = 7;
// The rows share about this many pixels, within per-row bounds.
constexpr double kRowsBudgetPx = 640, kMinRowPx = 11, kMaxRowPx = 44;
// Ops at least this wide give up their last pixel, so back-to-back ops read as separate boxes.
constexpr double kSeparatedBoxPx = 4;

double textWidth(const std::string& s, double font) {
  return static_cast<double>(s.size()) * font * kCharWidth + kLabelPadPx;
}

const char* kindLegend(OpKind k) {
  switch (k) {
    case OpKind::F:
      return "F forward";
    case OpKind::B:
      return "B input grad";
    case OpKind::W:
      return "W weight grad";
    case OpKind::BW:
      return "BW backward";
  }
  return "?";
}

std::string opDescription(const OpRecord& o, TimeNs stepStart) {
  std::string s = std::string(engine::kindName(o.op.kind)) + " mb=" + std::to_string(o.op.mb);
  if (o.op.chunk) s += " ch=" + std::to_string(o.op.chunk);
  s += ", stage " + std::to_string(o.stage) + ": " + formatMs(o.start - stepStart, 2) + "-" +
       formatMs(o.end - stepStart, 2) + " ms (" + formatMs(o.end - o.start, 2) + " ms";
  if (o.idealCost > 0) {
    s += ", " +
         formatRatio(static_cast<double>(o.end - o.start) / static_cast<double>(o.idealCost)) +
         " its ideal";
  }
  return s + ")";
}

// The longest of the candidates that fits in `w` px, or "".
std::string fittingLabel(const Op& op, double w, double font) {
  if (font < kMinLabelFont) return "";
  const std::string mb =
      std::to_string(op.mb) + (op.chunk ? "." + std::to_string(op.chunk) : std::string());
  for (const std::string& s : {engine::label(op), mb, std::to_string(op.mb)}) {
    if (textWidth(s, font) <= w) return s;
  }
  return "";
}

// Adds the boxes of one lane's ops (sorted by start), folding runs of too-narrow ones.
void addOpLane(const std::vector<const OpRecord*>& ops, BoxKind kind, const TimelineRow& row,
               const TimeAxis& axis, TimeNs origin, double font, int rowIndex,
               std::vector<TimelineBox>& out) {
  const double y = kind == BoxKind::Ghost ? row.ghostY : row.y;
  const double h = kind == BoxKind::Ghost ? row.ghostHeight : row.opHeight;
  const auto x = [&](TimeNs t) { return axis.x(t - origin); };
  for (size_t i = 0; i < ops.size();) {
    const OpRecord& first = *ops[i];
    const double x0 = x(first.start);
    double x1 = x(first.end);
    if (x1 - x0 >= kMinBoxPx) {
      const double w = x1 - x0 >= kSeparatedBoxPx ? x1 - x0 - 1 : x1 - x0;
      TimelineBox b{kind,
                    rowIndex,
                    x0,
                    y,
                    w,
                    h,
                    opKindRgb(first.op.kind),
                    "",
                    "",
                    1,
                    static_cast<int>(first.op.kind)};
      if (kind == BoxKind::Op) {
        b.label = fittingLabel(first.op, b.w, font);
        b.tooltip = opDescription(first, origin);
      }
      out.push_back(std::move(b));
      ++i;
      continue;
    }
    std::array<TimeNs, 4> byKind{};
    size_t j = i;
    for (;;) {
      byKind[static_cast<int>(ops[j]->op.kind)] += ops[j]->end - ops[j]->start;
      x1 = std::max(x1, x(ops[j]->end));
      if (j + 1 >= ops.size()) break;
      const OpRecord& next = *ops[j + 1];
      if (x(next.end) - x(next.start) >= kMinBoxPx || x(next.start) - x1 >= kMinBoxPx) break;
      ++j;
    }
    const int dominant =
        static_cast<int>(std::max_element(byKind.begin(), byKind.end()) - byKind.begin());
    const int n = static_cast<int>(j - i + 1);
    TimelineBox b{kind,
                  rowIndex,
                  x0,
                  y,
                  std::max(x1 - x0, kMinBoxPx),
                  h,
                  opKindRgb(static_cast<OpKind>(dominant)),
                  "",
                  "",
                  n};
    if (kind == BoxKind::Op) {
      b.tooltip = n == 1 ? opDescription(first, origin)
                         : std::to_string(n) + " ops, " + engine::label(first.op) + " to " +
                               engine::label(ops[j]->op) + ", too narrow to draw apart";
    }
    out.push_back(std::move(b));
    i = j + 1;
  }
}

std::string opSummary(int stage, OpKind kind, const std::vector<const OpRecord*>& ops) {
  int n = 0;
  TimeNs total = 0, ideal = 0;
  for (const OpRecord* o : ops) {
    if (o->op.kind != kind) continue;
    ++n;
    total += o->end - o->start;
    ideal += o->idealCost;
  }
  if (n == 0) return "";
  std::string s = "stage " + std::to_string(stage) + ", " + engine::kindName(kind) + ": " +
                  std::to_string(n) + " ops, " + formatMs(total / n, 2) + " ms mean";
  if (ideal > 0) {
    s +=
        " (" + formatRatio(static_cast<double>(total) / static_cast<double>(ideal)) + " its ideal)";
  }
  return s + ", " + formatMs(total) + " ms in all";
}

std::string gapDescription(const Gap& g) {
  std::string s = formatMs(g.idle, 2) + " ms idle:";
  bool first = true;
  for (int c = 0; c < kIdleClasses; ++c) {
    if (g.byClass[c] <= 0) continue;
    s += std::string(first ? " " : ", ") + formatMs(g.byClass[c], 2) + " ms " +
         idleClassName(idleClassAt(c));
    first = false;
  }
  if (!g.blame.text.empty()) s += ". " + g.blame.text;
  return s;
}

// The step's ops and the ideal schedule's per stage, by start, and what they cover.
struct StepOps {
  std::vector<std::vector<const OpRecord*>> ops, ghosts;
  TimeNs lastOpEnd = 0;  // the step's tail (gradient sync, optimizer) follows
  TimeNs idealEnd = 0;
  std::array<bool, 4> kindSeen{};
};

StepOps stepOps(const PipelineResult& pl, int step) {
  const int p = static_cast<int>(pl.stages.size());
  StepOps out;
  out.ops.resize(p);
  out.ghosts.resize(p);
  out.lastOpEnd = pl.steps[step].start;
  for (const OpRecord& o : pl.ops) {
    if (o.step != step || o.stage < 0 || o.stage >= p) continue;
    out.ops[o.stage].push_back(&o);
    out.lastOpEnd = std::max(out.lastOpEnd, o.end);
    out.kindSeen[static_cast<int>(o.op.kind)] = true;
  }
  for (const OpRecord& o : pl.idealOps) {
    if (o.stage < 0 || o.stage >= p) continue;
    out.ghosts[o.stage].push_back(&o);
    out.idealEnd = std::max(out.idealEnd, o.end);
    out.kindSeen[static_cast<int>(o.op.kind)] = true;
  }
  const auto byStart = [](const OpRecord* a, const OpRecord* b) { return a->start < b->start; };
  for (int s = 0; s < p; ++s) {
    std::sort(out.ops[s].begin(), out.ops[s].end(), byStart);
    std::sort(out.ghosts[s].begin(), out.ghosts[s].end(), byStart);
  }
  return out;
}

// What the colors mean: only what this step shows.
std::vector<LegendItem> legendOf(const PipelineResult& pl, int step, const StepOps& so) {
  std::vector<LegendItem> legend;
  std::vector<bool> classSeen(kIdleClasses, false);
  for (const Gap& g : pl.gaps) {
    if (g.step == step && g.idle > 0) classSeen[static_cast<int>(g.dominant)] = true;
  }
  for (int k = 0; k < 4; ++k) {
    if (so.kindSeen[k]) {
      legend.push_back({opKindRgb(static_cast<OpKind>(k)), kindLegend(static_cast<OpKind>(k))});
    }
  }
  if (!pl.idealOps.empty()) {
    legend.push_back({opKindRgb(OpKind::F), "ideal schedule (thin lane)", true});
  }
  for (int c = 0; c < kIdleClasses; ++c) {
    if (classSeen[c]) {
      legend.push_back(
          {idleClassRgb(idleClassAt(c)), std::string("idle: ") + idleClassName(idleClassAt(c))});
    }
  }
  if (pl.steps[step].end > so.lastOpEnd) {
    legend.push_back({otherBusyRgb(), "grad sync + optimizer"});
  }
  return legend;
}

// How many lines the legend takes, wrapped at the width.
constexpr double kLegendFont = 12, kSwatch = 12, kLegendRow = 18;
int legendLines(const std::vector<LegendItem>& legend, double x0, double width) {
  double x = x0;
  int lines = 1;
  for (const LegendItem& item : legend) {
    const double w = kSwatch + 6 + textWidth(item.text, kLegendFont) + 14;
    if (x + w > width && x > x0) {
      x = x0;
      ++lines;
    }
    x += w;
  }
  return lines;
}

// Per row and dominant class: how many gaps, how much idle, and the largest one's blame.
void addIdleSummaries(const PipelineResult& pl, int step, std::vector<TimelineRow>& rows) {
  const int p = static_cast<int>(rows.size());
  std::vector<std::array<const Gap*, kIdleClasses>> largest(p);
  std::vector<std::array<std::pair<int, TimeNs>, kIdleClasses>> sums(p);
  for (const Gap& g : pl.gaps) {
    if (g.step != step || g.idle <= 0 || g.stage < 0 || g.stage >= p) continue;
    const int c = static_cast<int>(g.dominant);
    sums[g.stage][c].first += 1;
    sums[g.stage][c].second += g.idle;
    if (!largest[g.stage][c] || g.idle > largest[g.stage][c]->idle) largest[g.stage][c] = &g;
  }
  for (int s = 0; s < p; ++s) {
    for (int c = 0; c < kIdleClasses; ++c) {
      if (!largest[s][c]) continue;
      rows[s].idleSummary[c] = "stage " + std::to_string(rows[s].stage) + ", mostly " +
                               idleClassName(idleClassAt(c)) + ": " +
                               std::to_string(sums[s][c].first) + " gap(s), " +
                               formatMs(sums[s][c].second, 2) +
                               " ms idle in all. Largest: " + gapDescription(*largest[s][c]);
    }
  }
}

// The step's idle gaps, each shaded by its dominant class, and its tail after the last op.
void addIdleAndTail(const PipelineResult& pl, int step, TimeNs lastOpEnd, const TimeAxis& axis,
                    double boxFont, TimelineLayout& L) {
  const StepInfo& info = pl.steps[step];
  const int p = static_cast<int>(L.rows.size());
  const auto x = [&](TimeNs t) { return axis.x(t - info.start); };
  for (const Gap& g : pl.gaps) {
    if (g.step != step || g.idle <= 0 || g.stage < 0 || g.stage >= p) continue;
    // A drain gap runs to the step's end; the tail after the last op is drawn on its own.
    const TimeNs end = g.nextOp < 0 ? std::min(g.end, lastOpEnd) : g.end;
    const double x0 = x(g.start), x1 = x(end);
    if (x1 - x0 < kMinGapPx) continue;
    const TimelineRow& row = L.rows[g.stage];
    L.boxes.push_back({BoxKind::Idle, g.stage, x0, row.y + std::round(row.opHeight * 0.25),
                       x1 - x0, std::max(1.0, std::round(row.opHeight * 0.5)),
                       idleClassRgb(g.dominant), "", gapDescription(g), 1,
                       static_cast<int>(g.dominant)});
  }
  if (info.end <= lastOpEnd) return;
  const double x0 = x(lastOpEnd), x1 = x(info.end);
  const std::string tip = "gradient sync + optimizer (and waiting for them): " +
                          formatMs(info.end - lastOpEnd, 2) + " ms";
  for (int s = 0; s < p; ++s) {
    std::string label;
    for (const char* candidate : {"sync + optimizer", "opt"}) {
      if (boxFont >= kMinLabelFont && textWidth(candidate, boxFont) <= x1 - x0) {
        label = candidate;
        break;
      }
    }
    L.boxes.push_back({BoxKind::Tail, s, x0, L.rows[s].y, std::max(x1 - x0, kMinBoxPx),
                       L.rows[s].opHeight, otherBusyRgb(), label, tip, 1});
  }
}

}  // namespace

int pickStepToDraw(const PipelineResult& pl) {
  if (pl.steps.empty()) return 0;
  std::vector<TimeNs> avoidable(pl.steps.size(), 0);
  for (const Gap& g : pl.gaps) {
    if (g.step >= 0 && g.step < static_cast<int>(avoidable.size())) {
      avoidable[g.step] += avoidableIdle(g);
    }
  }
  return static_cast<int>(std::max_element(avoidable.begin(), avoidable.end()) - avoidable.begin());
}

TimelineLayout layoutTimeline(const PipelineResult& pl, int step, double width) {
  TimelineLayout L;
  L.step = step;
  L.width = width;
  if (pl.steps.empty() || step < 0 || step >= static_cast<int>(pl.steps.size())) return L;
  const StepInfo& info = pl.steps[step];
  const int p = static_cast<int>(pl.stages.size());
  const StepOps so = stepOps(pl, step);
  const TimeNs range = std::max({info.duration(), pl.stepTimeIdeal, so.idealEnd, TimeNs{1}});

  // Vertical rhythm: rows share a budget, each between a thin and a comfortable height.
  const double perRow =
      std::clamp(std::floor(kRowsBudgetPx / std::max(p, 1)), kMinRowPx, kMaxRowPx);
  const double opHeight = std::round(perRow * 0.6);
  const double ghostHeight = std::max(2.0, std::round(perRow * 0.18));
  L.fontSize = std::clamp(std::round(perRow * 0.75), 7.0, 12.0);
  const double boxFont = std::min(11.0, opHeight * 0.55);
  const bool thin = perRow < 18;

  // Legend first: its lines push the rows down.
  L.legend = legendOf(pl, step, so);
  double labelWidth = 0;
  std::vector<std::string> rowLabels(p);
  for (int s = 0; s < p; ++s) {
    rowLabels[s] =
        thin ? std::to_string(pl.stages[s].stage) : "stage " + std::to_string(pl.stages[s].stage);
    labelWidth = std::max(labelWidth, textWidth(rowLabels[s], L.fontSize));
  }
  L.plotX0 = std::ceil(labelWidth + 8);
  L.plotX1 = width - 16;
  L.legendY = 4;
  L.plotY0 = L.legendY + legendLines(L.legend, L.plotX0, width) * kLegendRow + 10;

  const TimeAxis axis{0, range, L.plotX0, L.plotX1};
  for (int s = 0; s < p; ++s) {
    TimelineRow row;
    row.stage = pl.stages[s].stage;
    row.label = rowLabels[s];
    row.y = L.plotY0 + s * perRow;
    row.opHeight = opHeight;
    row.ghostY = row.y + opHeight + 1;
    row.ghostHeight = ghostHeight;
    for (int k = 0; k < 4; ++k) {
      row.opSummary[k] = opSummary(row.stage, static_cast<OpKind>(k), so.ops[s]);
    }
    L.rows.push_back(row);
  }
  L.plotY1 = L.plotY0 + p * perRow;
  addIdleSummaries(pl, step, L.rows);

  // Paint order: ghosts, idle and tail beneath, ops on top.
  for (int s = 0; s < p; ++s) {
    addOpLane(so.ghosts[s], BoxKind::Ghost, L.rows[s], axis, 0, boxFont, s, L.boxes);
  }
  addIdleAndTail(pl, step, so.lastOpEnd, axis, boxFont, L);
  for (int s = 0; s < p; ++s) {
    addOpLane(so.ops[s], BoxKind::Op, L.rows[s], axis, info.start, boxFont, s, L.boxes);
  }

  L.measuredEndX = axis.x(info.end - info.start);
  if (pl.stepTimeIdeal > 0) L.idealEndX = axis.x(pl.stepTimeIdeal);
  L.axisY = L.plotY1 + 4;
  const int maxTicks = std::max(2, static_cast<int>((L.plotX1 - L.plotX0) / 70));
  const TimeNs tickStep = niceTickStep(range, maxTicks);
  for (TimeNs t : niceTicks(range, maxTicks)) {
    L.ticks.push_back({axis.x(t), tickLabelMs(t, tickStep)});
  }
  L.height = L.axisY + 36;
  return L;
}

}  // namespace bubblescope::analysis
