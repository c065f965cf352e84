#include "bench/support/resident_peak.h"

#include <cstdlib>
#include <fstream>
#include <string>

namespace bubblescope::bench {

long residentPeakKiB() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::atol(line.c_str() + 6);
  }
  return -1;
}

void restartResidentPeak() {
  std::ofstream("/proc/self/clear_refs") << "5";
}

}  // namespace bubblescope::bench
