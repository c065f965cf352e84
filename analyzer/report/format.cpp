#include "analyzer/report/format.h"

#include <cstdio>

namespace bubblescope::analysis {

std::string formatMs(TimeNs t, int decimals) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, static_cast<double>(t) / 1e6);
  return buf;
}

std::string formatPercent(double f, int decimals) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f%%", decimals, f * 100.0);
  return buf;
}

std::string formatRatio(double r) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.2fx", r);
  return buf;
}

double share(TimeNs part, TimeNs whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

}  // namespace bubblescope::analysis
