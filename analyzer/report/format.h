#pragma once
// Number formatting shared by the reports.
#include <string>

#include "traces/model/time.h"

namespace bubblescope::analysis {

std::string formatMs(TimeNs t, int decimals = 1);              // "12.3"
std::string formatPercent(double fraction, int decimals = 1);  // "12.3%"
std::string formatRatio(double r);                             // "1.23x"
// Share of `part` in `whole` as a fraction (0 when whole is 0).
double share(TimeNs part, TimeNs whole);

}  // namespace bubblescope::analysis
