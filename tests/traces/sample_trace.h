#pragma once
// A small trace with rows in every table, for format tests.
#include "traces/model/trace.h"

namespace bubblescope::testing {

traces::RankTrace sampleTrace(int rank, int worldSize = 4);

}  // namespace bubblescope::testing
