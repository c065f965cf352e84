#include "gui/timeline/ruler.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace bubblescope::gui {
namespace {

struct Unit {
  TimeNs ns;
  const char* name;
};
constexpr Unit kUnits[] = {{1'000'000'000, "s"}, {1'000'000, "ms"}, {1'000, "µs"}, {1, "ns"}};

const Unit& unitFor(TimeNs magnitude) {
  for (const Unit& u : kUnits) {
    if (magnitude >= u.ns) return u;
  }
  return kUnits[3];
}

// Floor division (ticks left of the origin).
TimeNs floorDiv(TimeNs a, TimeNs b) {
  TimeNs q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

}  // namespace

TimeNs tickStep(const TimeMapping& m, double minSpacingPx) {
  const double wanted = minSpacingPx * m.nsPerPx();
  for (TimeNs decade = 1;; decade *= 10) {
    for (TimeNs mult : {1, 2, 5}) {
      if (static_cast<double>(decade * mult) >= wanted) return decade * mult;
    }
    if (decade > 1'000'000'000'000'000) return decade * 10;
  }
}

std::vector<Tick> rulerTicks(const TimeMapping& m, TimeNs origin, double minSpacingPx) {
  const TimeNs step = tickStep(m, minSpacingPx);
  std::vector<Tick> ticks;
  for (TimeNs k = floorDiv(m.start - origin, step);; ++k) {
    const TimeNs t = origin + k * step;
    if (t >= m.end) break;
    if (t < m.start) continue;
    ticks.push_back({t, m.x(t), tickLabel(t - origin, step)});
  }
  return ticks;
}

std::string formatDuration(TimeNs t, int decimals) {
  const Unit& u = unitFor(std::llabs(t));
  char buf[48];
  if (u.ns == 1) {
    std::snprintf(buf, sizeof buf, "%lld ns", static_cast<long long>(t));
  } else {
    std::snprintf(buf, sizeof buf, "%.*f %s", decimals,
                  static_cast<double>(t) / static_cast<double>(u.ns), u.name);
  }
  return buf;
}

std::string tickLabel(TimeNs relative, TimeNs step) {
  if (relative == 0) return "0";
  const Unit& u = unitFor(step);
  // Decimals so that the step itself is exact in the unit: 2.5 ms steps of 500 µs need one.
  int decimals = 0;
  for (TimeNs s = step; s % u.ns != 0 && decimals < 9; s *= 10) ++decimals;
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f %s", decimals,
                static_cast<double>(relative) / static_cast<double>(u.ns), u.name);
  return buf;
}

}  // namespace bubblescope::gui
