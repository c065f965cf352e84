#pragma once
// The table `bubblescope import` prints: per rank, where it came from and how many events of each
// kind it holds, its steps, and what the import left out.
#include <ostream>

#include "traces/import/run_import.h"

namespace bubblescope::traces::import {

// Training steps the trace marks (ProfilerStep#N or "step N" ranges).
size_t countSteps(const RankTrace& trace);

void printImportSummary(const ImportedRun& imported, std::ostream& out);

}  // namespace bubblescope::traces::import
