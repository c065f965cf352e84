#pragma once
// What `bubblescope check` prints (each metric "baseline → current (delta)" with its verdict,
// then a one-line verdict) and the JUnit file it writes for CI (a test case per gated metric,
// failing on regression).
#include <ostream>
#include <string>

#include "analyzer/check/compare.h"

namespace bubblescope::analysis {

struct CheckNames {
  std::string baseline;  // as the user named them
  std::string current;
  // What each was when it was analysed here ("run directory, analysed"); empty for a report.
  std::string baselineWhat;
  std::string currentWhat;
};

void printCheck(const CheckResult& result, const CheckNames& names, std::ostream& out, bool color);
// "REGRESSED: bubble share +6.72 pp (limit 2.00 pp), ..." or "OK: no regression ...".
std::string checkVerdict(const CheckResult& result);
void writeCheckJunit(const CheckResult& result, const CheckNames& names, std::ostream& out);

}  // namespace bubblescope::analysis
