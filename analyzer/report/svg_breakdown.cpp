#include "analyzer/report/svg_breakdown.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

#include "analyzer/report/format.h"
#include "analyzer/report/markup.h"
#include "analyzer/report/palette.h"
#include "analyzer/report/svg_writer.h"

namespace bubblescope::analysis {
namespace {

using svg::num;

constexpr const char* kInk = "#1f2937";
constexpr const char* kMutedInk = "#6b7280";
// Rows share about this many pixels, within per-row bounds.
constexpr double kRowsBudgetPx = 480, kMinRowPx = 7, kMaxRowPx = 24;

struct Part {
  std::string name;
  Rgb fill;
  TimeNs Split::*field = nullptr;  // or an idle class
  int idleClass = -1;
};

std::vector<Part> parts() {
  std::vector<Part> out = {{"compute", computeRgb(), &Split::compute},
                           {"exposed comm", exposedCommRgb(), &Split::exposedComm},
                           {"other busy", otherBusyRgb(), &Split::otherBusy}};
  for (int c = 0; c < kIdleClasses; ++c) {
    out.push_back({std::string("idle: ") + idleClassName(idleClassAt(c)),
                   idleClassRgb(idleClassAt(c)), nullptr, c});
  }
  return out;
}

TimeNs valueOf(const Split& s, const Part& part) {
  return part.field ? s.*(part.field) : s.idleByClass[part.idleClass];
}

}  // namespace

std::string breakdownSvg(const PipelineResult& pl, double width) {
  const std::vector<Part> all = parts();
  // Only what occurs somewhere gets a legend entry.
  std::vector<bool> used(all.size(), false);
  for (size_t i = 0; i < all.size(); ++i) used[i] = valueOf(pl.total, all[i]) > 0;

  const int rows = static_cast<int>(pl.stages.size()) + 1;
  const double rowPx = std::clamp(std::floor(kRowsBudgetPx / rows), kMinRowPx, kMaxRowPx);
  const double barPx = std::max(5.0, std::round(rowPx * 0.72));
  const double font = std::clamp(std::round(rowPx * 0.7), 7.0, 12.0);
  const bool thin = rowPx < 16;
  const double labelX1 = thin ? 44 : 84;  // row labels end here
  const double valueW = 96;               // "idle 23.4%" at the right
  const double x0 = labelX1 + 8, x1 = width - valueW;

  std::ostringstream out;
  std::ostringstream body;
  // Legend.
  double lx = x0, ly = 4;
  constexpr double kLegendFont = 12, kSwatch = 12, kLegendRow = 18;
  for (size_t i = 0; i < all.size(); ++i) {
    if (!used[i]) continue;
    const double w = kSwatch + 6 + static_cast<double>(all[i].name.size()) * kLegendFont * 0.6 + 18;
    if (lx + w > width && lx > x0) {
      lx = x0;
      ly += kLegendRow;
    }
    body << "<rect x=\"" << num(lx) << "\" y=\"" << num(ly + 1) << "\" width=\"" << kSwatch
         << "\" height=\"" << kSwatch << "\" rx=\"2\" fill=\"" << hexColor(all[i].fill) << "\"/>"
         << "<text x=\"" << num(lx + kSwatch + 6) << "\" y=\"" << num(ly + 11) << "\" font-size=\""
         << kLegendFont << "\" fill=\"" << kInk << "\">" << escapeXml(all[i].name) << "</text>\n";
    lx += w;
  }
  const double top = ly + kLegendRow + 10;

  auto bar = [&](int row, const std::string& label, const Split& s) {
    const double y = top + row * rowPx;
    body << "<text x=\"" << num(labelX1) << "\" y=\"" << num(y + barPx / 2)
         << "\" text-anchor=\"end\" dominant-baseline=\"central\" font-size=\"" << num(font)
         << "\" fill=\"" << kInk << "\"" << (row == 0 ? " font-weight=\"600\"" : "") << ">"
         << escapeXml(label) << "</text>\n";
    double x = x0;
    for (const Part& part : all) {
      const TimeNs v = valueOf(s, part);
      if (v <= 0 || s.span <= 0) continue;
      const double w = (x1 - x0) * share(v, s.span);
      body << "<rect x=\"" << num(x) << "\" y=\"" << num(y) << "\" width=\"" << num(w)
           << "\" height=\"" << num(barPx) << "\" fill=\"" << hexColor(part.fill) << "\"><title>"
           << escapeXml(label + ": " + part.name + " " + formatMs(v) + " ms (" +
                        formatPercent(share(v, s.span)) + " of " + formatMs(s.span) + " ms)")
           << "</title></rect>";
      x += w;
    }
    body << "<text x=\"" << num(x1 + 8) << "\" y=\"" << num(y + barPx / 2)
         << "\" dominant-baseline=\"central\" font-size=\"" << num(font) << "\" fill=\""
         << kMutedInk << "\">idle " << formatPercent(share(s.idle, s.span)) << "</text>\n";
  };
  bar(0, thin ? "all" : "all stages", pl.total);
  for (size_t i = 0; i < pl.stages.size(); ++i) {
    const auto& st = pl.stages[i];
    bar(static_cast<int>(i) + 1,
        thin ? std::to_string(st.stage) : "stage " + std::to_string(st.stage), st.total);
  }
  const double axisY = top + rows * rowPx + 2;
  body << "<line x1=\"" << num(x0) << "\" y1=\"" << num(axisY) << "\" x2=\"" << num(x1)
       << "\" y2=\"" << num(axisY) << "\" stroke=\"" << kMutedInk << "\"/>\n";
  for (int pct = 0; pct <= 100; pct += 10) {
    const double x = x0 + (x1 - x0) * pct / 100.0;
    body << "<line x1=\"" << num(x) << "\" y1=\"" << num(axisY) << "\" x2=\"" << num(x)
         << "\" y2=\"" << num(axisY + 4) << "\" stroke=\"" << kMutedInk << "\"/><text x=\""
         << num(x) << "\" y=\"" << num(axisY + 16) << "\" text-anchor=\"middle\" font-size=\"11\" "
         << "fill=\"" << kMutedInk << "\">" << pct << "%</text>\n";
  }
  const double height = axisY + 34;
  body << "<text x=\"" << num(x1) << "\" y=\"" << num(axisY + 31)
       << "\" text-anchor=\"end\" font-size=\"11\" fill=\"" << kMutedInk
       << "\">share of the span of all analysed steps</text>\n";

  const std::string title = "Pipeline " + std::to_string(pl.dpRank) +
                            ": where each stage's time went (compute, communication, other, idle "
                            "by class)";
  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"bubblescope-breakdown\" width=\""
      << num(width) << "\" height=\"" << num(height) << "\" viewBox=\"0 0 " << num(width) << ' '
      << num(height) << "\" font-family=\"" << svg::kFontFamily << "\" role=\"img\" aria-label=\""
      << escapeXml(title) << "\">\n<title>" << escapeXml(title) << "</title>\n"
      << body.str() << "</svg>\n";
  return out.str();
}

}  // namespace bubblescope::analysis
