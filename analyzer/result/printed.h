#pragma once
// One number printed into the sentences the analysis writes (culprit lines): printf's format,
// so "%.2fx" and "%.0f%%" read the same wherever a sentence is made.
#include <cstdint>
#include <cstdio>
#include <string>

namespace bubblescope::analysis {

inline std::string printed(const char* format, double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, value);
  return buf;
}

// How much shorter the step would be, as every culprit line ends: "; the step would shrink by
// about 7.5 ms (11%)" of a `measured` step (both in ns).
inline std::string stepWouldShrink(int64_t gain, int64_t measured) {
  return "; the step would shrink by about " + printed("%.1f ms", static_cast<double>(gain) / 1e6) +
         " (" +
         printed("%.0f%%", 100.0 * static_cast<double>(gain) /
                               static_cast<double>(measured > 1 ? measured : 1)) +
         ")";
}

// Bytes in binary units, as the reports print memory: "37.2 GiB", "384 MiB", "12 KiB", "96 B".
inline std::string printedBytes(uint64_t bytes) {
  const double b = static_cast<double>(bytes);
  if (b >= 0x1p30) return printed("%.1f GiB", b / 0x1p30);
  if (b >= 0x1p20) return printed("%.0f MiB", b / 0x1p20);
  if (b >= 0x1p10) return printed("%.0f KiB", b / 0x1p10);
  return printed("%.0f B", b);
}

}  // namespace bubblescope::analysis
