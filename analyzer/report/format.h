#pragma once
// Number formatting shared by the reports.
#include <cstdint>
#include <string>

#include "traces/model/time.h"

namespace bubblescope::analysis {

std::string formatMs(TimeNs t, int decimals = 1);              // "12.3"
std::string formatPercent(double fraction, int decimals = 1);  // "12.3%"
std::string formatRatio(double r);                             // "1.23x"
std::string formatBytes(int64_t bytes);                        // "1.2 GiB", "384 MiB", "12 KiB"
// A count with at most two decimals, trailing zeros dropped: "4", "5.5", "4.33".
std::string formatCount(double n);
// Share of `part` in `whole` as a fraction (0 when whole is 0).
double share(TimeNs part, TimeNs whole);

}  // namespace bubblescope::analysis
