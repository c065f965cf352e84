#include "gui/timeline/time_mapping.h"

#include <algorithm>
#include <cmath>

namespace bubblescope::gui {
namespace {

TimeNs roundNs(double t) {
  return static_cast<TimeNs>(std::llround(t));
}

TimeNs maxSpan(Interval limits) {
  return std::max<TimeNs>(4 * std::max<TimeNs>(limits.duration(), 1), kMinViewSpan);
}

}  // namespace

TimeNs TimeMapping::time(double px) const {
  return start + roundNs((px - x0) * nsPerPx());
}

TimeMapping clampView(const TimeMapping& m, Interval limits) {
  TimeMapping out = m;
  const TimeNs span = std::clamp(m.span(), kMinViewSpan, maxSpan(limits));
  if (span != m.span()) {
    // Keep the centre where it was.
    const TimeNs centre = m.start + m.span() / 2;
    out.start = centre - span / 2;
    out.end = out.start + span;
  }
  // At least a tenth of the view stays on the data, so the run cannot be lost off screen.
  const TimeNs keep = std::min<TimeNs>(span / 10, std::max<TimeNs>(limits.duration(), 0));
  if (out.end < limits.start + keep) {
    out.start += limits.start + keep - out.end;
    out.end = out.start + span;
  } else if (out.start > limits.end - keep) {
    out.start = limits.end - keep;
    out.end = out.start + span;
  }
  return out;
}

TimeMapping zoomAt(const TimeMapping& m, double px, double factor, Interval limits) {
  if (!(factor > 0)) return m;
  const double anchorFraction = std::clamp((px - m.x0) / m.width, 0.0, 1.0);
  const TimeNs anchor = m.start + roundNs(anchorFraction * static_cast<double>(m.span()));
  const double wanted = static_cast<double>(m.span()) / factor;
  const TimeNs span = std::clamp(roundNs(wanted), kMinViewSpan, maxSpan(limits));
  TimeMapping out = m;
  out.start = anchor - roundNs(anchorFraction * static_cast<double>(span));
  out.end = out.start + span;
  return clampView(out, limits);
}

TimeMapping panBy(const TimeMapping& m, double dx, Interval limits) {
  const TimeNs delta = roundNs(dx * m.nsPerPx());
  TimeMapping out = m;
  out.start += delta;
  out.end += delta;
  return clampView(out, limits);
}

TimeMapping fitTo(const TimeMapping& m, TimeNs a, TimeNs b, double margin) {
  if (b < a) std::swap(a, b);
  const TimeNs span = std::max<TimeNs>(b - a, kMinViewSpan);
  const TimeNs pad = roundNs(static_cast<double>(span) * std::max(margin, 0.0));
  TimeMapping out = m;
  out.start = a - pad;
  out.end = a + span + pad;
  return out;
}

TimeMapping shifted(const TimeMapping& m, TimeNs delta) {
  TimeMapping out = m;
  out.start += delta;
  out.end += delta;
  return out;
}

}  // namespace bubblescope::gui
