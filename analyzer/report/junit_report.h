#pragma once
// The JUnit report (--format junit): one test suite "bubblescope", a test case per pipeline and
// per stage carrying the headline figures as properties and a readable summary as output, so a CI
// system keeps the numbers of every run. The analysis is a measurement, not a gate: no case
// fails (`bubblescope check` is the gate).
#include <ostream>

#include "analyzer/result/result.h"

namespace bubblescope::analysis {

void writeJunitReport(const AnalysisResult& result, std::ostream& out);

}  // namespace bubblescope::analysis
