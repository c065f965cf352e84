#include "analyzer/report/svg_timeline.h"

#include <algorithm>
#include <map>
#include <sstream>
#include <vector>

#include "analyzer/report/format.h"
#include "analyzer/report/markup.h"
#include "analyzer/report/svg_writer.h"

namespace bubblescope::analysis {
namespace {

using svg::num;

// More op boxes than this and boxes are drawn as one path per row, kind and class with one
// tooltip each: single boxes are then a few pixels wide, too small to hover, and a tooltip each
// would make the page several megabytes.
constexpr size_t kMaxDetailedOps = 2500;

constexpr const char* kInk = "#1f2937";
constexpr const char* kMutedInk = "#6b7280";
constexpr const char* kStripe = "#f3f4f6";

void legend(std::ostringstream& out, const TimelineLayout& L) {
  constexpr double kFont = 12, kSwatch = 12, kRow = 18;
  double x = L.plotX0, y = L.legendY;
  for (const LegendItem& item : L.legend) {
    const double w = kSwatch + 6 + static_cast<double>(item.text.size()) * kFont * 0.6 + 4 + 14;
    if (x + w > L.width && x > L.plotX0) {
      x = L.plotX0;
      y += kRow;
    }
    const std::string fill = hexColor(item.fill);
    if (item.ghost) {
      out << "<rect x=\"" << num(x) << "\" y=\"" << num(y + 7) << "\" width=\"" << kSwatch
          << "\" height=\"4\" fill=\"" << fill << "\" fill-opacity=\"0.45\"/>";
    } else {
      out << "<rect x=\"" << num(x) << "\" y=\"" << num(y + 1) << "\" width=\"" << kSwatch
          << "\" height=\"" << kSwatch << "\" rx=\"2\" fill=\"" << fill << "\"/>";
    }
    out << "<text x=\"" << num(x + kSwatch + 6) << "\" y=\"" << num(y + 11) << "\" font-size=\""
        << kFont << "\" fill=\"" << kInk << "\">" << escapeXml(item.text) << "</text>\n";
    x += w;
  }
}

void label(std::ostringstream& out, const TimelineBox& b) {
  if (b.label.empty()) return;
  out << "<text x=\"" << num(b.x + b.w / 2) << "\" y=\"" << num(b.y + b.h / 2)
      << "\" text-anchor=\"middle\" dominant-baseline=\"central\" fill=\"" << svg::textOn(b.fill)
      << "\">" << escapeXml(b.label) << "</text>\n";
}

void box(std::ostringstream& out, const TimelineBox& b) {
  out << "<rect x=\"" << num(b.x) << "\" y=\"" << num(b.y) << "\" width=\"" << num(b.w)
      << "\" height=\"" << num(b.h) << "\" fill=\"" << hexColor(b.fill) << '"';
  if (b.kind == BoxKind::Ghost) out << " fill-opacity=\"0.45\"";
  if (b.tooltip.empty()) {
    out << "/>";
  } else {
    out << "><title>" << escapeXml(b.tooltip) << "</title></rect>";
  }
  out << '\n';
  label(out, b);
}

// Boxes of one kind on one row with one fill, as a single path with the row's summary tooltip.
void densePaths(std::ostringstream& out, const TimelineLayout& L, BoxKind kind) {
  struct Key {
    int row, style;
    auto operator<=>(const Key&) const = default;
  };
  std::map<Key, std::vector<const TimelineBox*>> groups;
  for (const TimelineBox& b : L.boxes) {
    if (b.kind == kind) groups[{b.row, b.style}].push_back(&b);
  }
  for (const auto& [key, boxes] : groups) {
    const TimelineRow& row = L.rows[key.row];
    out << "<path fill=\"" << hexColor(boxes.front()->fill) << '"';
    if (kind == BoxKind::Ghost) out << " fill-opacity=\"0.45\"";
    out << " d=\"";
    for (const TimelineBox* b : boxes) {
      out << 'M' << num(b->x) << ' ' << num(b->y) << 'h' << num(b->w) << 'v' << num(b->h) << 'h'
          << num(-b->w) << 'z';
    }
    out << '"';
    const std::string& tip = kind == BoxKind::Idle ? row.idleSummary[key.style]
                             : kind == BoxKind::Op ? row.opSummary[key.style]
                                                   : std::string();
    if (tip.empty()) {
      out << "/>\n";
    } else {
      out << "><title>" << escapeXml(tip) << "</title></path>\n";
    }
  }
}

}  // namespace

std::string timelineSvg(const TimelineLayout& L, const std::string& title) {
  std::ostringstream out;
  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"bubblescope-timeline\" width=\""
      << num(L.width) << "\" height=\"" << num(L.height) << "\" viewBox=\"0 0 " << num(L.width)
      << ' ' << num(L.height) << "\" font-family=\"" << svg::kFontFamily
      << "\" role=\"img\" aria-label=\"" << escapeXml(title) << "\">\n";
  out << "<title>" << escapeXml(title) << "</title>\n";
  legend(out, L);

  // Every other row striped, so the eye can follow a stage across a wide step.
  for (size_t i = 0; i < L.rows.size(); ++i) {
    const TimelineRow& r = L.rows[i];
    if (i % 2 == 1) {
      out << "<rect x=\"0\" y=\"" << num(r.y - 1) << "\" width=\"" << num(L.width) << "\" height=\""
          << num(r.ghostY + r.ghostHeight + 2 - r.y) << "\" fill=\"" << kStripe << "\"/>\n";
    }
    out << "<text x=\"" << num(L.plotX0 - 6) << "\" y=\"" << num(r.y + r.opHeight / 2)
        << "\" text-anchor=\"end\" dominant-baseline=\"central\" font-size=\"" << num(L.fontSize)
        << "\" fill=\"" << kInk << "\">" << escapeXml(r.label) << "</text>\n";
  }

  // Box labels share one font size: set it once on a group.
  const double boxFont = L.rows.empty() ? 11 : std::min(11.0, L.rows.front().opHeight * 0.55);
  out << "<g font-size=\"" << num(boxFont) << "\">\n";
  const auto ops = std::count_if(L.boxes.begin(), L.boxes.end(),
                                 [](const TimelineBox& b) { return b.kind == BoxKind::Op; });
  if (static_cast<size_t>(ops) <= kMaxDetailedOps) {
    for (const TimelineBox& b : L.boxes) box(out, b);
  } else {
    densePaths(out, L, BoxKind::Ghost);
    densePaths(out, L, BoxKind::Idle);
    for (const TimelineBox& b : L.boxes) {
      if (b.kind == BoxKind::Tail) box(out, b);
    }
    densePaths(out, L, BoxKind::Op);
    for (const TimelineBox& b : L.boxes) {
      if (b.kind == BoxKind::Op) label(out, b);
    }
  }
  out << "</g>\n";

  // Where the step ends, and where the ideal schedule would have ended it.
  const double top = L.plotY0 - 4, bottom = L.plotY1;
  out << "<line x1=\"" << num(L.measuredEndX) << "\" y1=\"" << num(top) << "\" x2=\""
      << num(L.measuredEndX) << "\" y2=\"" << num(bottom) << "\" stroke=\"" << kInk
      << "\" stroke-width=\"1.5\"/>\n";
  if (L.idealEndX) {
    out << "<line x1=\"" << num(*L.idealEndX) << "\" y1=\"" << num(top) << "\" x2=\""
        << num(*L.idealEndX) << "\" y2=\"" << num(bottom) << "\" stroke=\"" << kInk
        << "\" stroke-width=\"1.5\" stroke-dasharray=\"5 3\"><title>the ideal step ends here "
           "(balanced stages, no stalls)</title></line>\n";
  }

  // Time axis.
  out << "<line x1=\"" << num(L.plotX0) << "\" y1=\"" << num(L.axisY) << "\" x2=\"" << num(L.plotX1)
      << "\" y2=\"" << num(L.axisY) << "\" stroke=\"" << kMutedInk << "\"/>\n";
  for (const AxisTick& t : L.ticks) {
    out << "<line x1=\"" << num(t.x) << "\" y1=\"" << num(L.axisY) << "\" x2=\"" << num(t.x)
        << "\" y2=\"" << num(L.axisY + 4) << "\" stroke=\"" << kMutedInk << "\"/>"
        << "<text x=\"" << num(t.x) << "\" y=\"" << num(L.axisY + 16)
        << "\" text-anchor=\"middle\" font-size=\"11\" fill=\"" << kMutedInk << "\">" << t.label
        << "</text>\n";
  }
  out << "<text x=\"" << num(L.plotX1) << "\" y=\"" << num(L.axisY + 31)
      << "\" text-anchor=\"end\" font-size=\"11\" fill=\"" << kMutedInk
      << "\">ms from the step's start · solid line: step end · dashed: ideal step end</text>\n";
  out << "</svg>\n";
  return out.str();
}

std::string stepTimelineSvg(const PipelineResult& pl, const SvgTimelineOptions& o) {
  const int step = o.step >= 0 ? o.step : pickStepToDraw(pl);
  const TimelineLayout L = layoutTimeline(pl, step, o.width);
  std::string title = "Pipeline " + std::to_string(pl.dpRank);
  if (step < static_cast<int>(pl.steps.size())) {
    const StepInfo& s = pl.steps[step];
    title += ", step " + std::to_string(s.number) + ": " + formatMs(s.duration()) +
             " ms measured, " + formatMs(pl.stepTimeIdeal) + " ms ideal";
  }
  return timelineSvg(L, title);
}

}  // namespace bubblescope::analysis
