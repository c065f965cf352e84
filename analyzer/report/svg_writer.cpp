#include "analyzer/report/svg_writer.h"

#include <cmath>
#include <cstdio>

namespace bubblescope::analysis::svg {

std::string num(double v) {
  const double r = std::round(v * 10.0) / 10.0;
  char buf[32];
  if (r == std::floor(r)) {
    std::snprintf(buf, sizeof buf, "%.0f", r);
  } else {
    std::snprintf(buf, sizeof buf, "%.1f", r);
  }
  return std::string(buf) == "-0" ? "0" : buf;
}

const char* textOn(Rgb c) {
  // Relative luminance (sRGB weights, no gamma: good enough to choose black or white).
  const double y = (0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b) / 255.0;
  return y > 0.55 ? "#111827" : "#ffffff";
}

}  // namespace bubblescope::analysis::svg
