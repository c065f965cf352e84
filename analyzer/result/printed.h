#pragma once
// One number printed into the sentences the analysis writes (culprit lines): printf's format,
// so "%.2fx" and "%.0f%%" read the same wherever a sentence is made.
#include <cstdio>
#include <string>

namespace bubblescope::analysis {

inline std::string printed(const char* format, double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, value);
  return buf;
}

}  // namespace bubblescope::analysis
