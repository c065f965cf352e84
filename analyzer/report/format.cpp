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

std::string formatBytes(int64_t bytes) {
  const double b = static_cast<double>(bytes);
  char buf[48];
  if (b >= 0x1p30) {
    std::snprintf(buf, sizeof buf, "%.1f GiB", b / 0x1p30);
  } else if (b >= 0x1p20) {
    std::snprintf(buf, sizeof buf, "%.0f MiB", b / 0x1p20);
  } else {
    std::snprintf(buf, sizeof buf, "%.0f KiB", b / 0x1p10);
  }
  return buf;
}

std::string formatCount(double n) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.2f", n);
  std::string s = buf;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

double share(TimeNs part, TimeNs whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

}  // namespace bubblescope::analysis
