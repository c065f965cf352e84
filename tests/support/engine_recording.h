#pragma once
// The test suite's standard recorded engine run: `bubblescope record -o DIR -- bubblescope engine
// run --op-ms 4,4,4 --steps 4 --truth TRUTH -q ARGS...` (4 ms ops, 4 steps unless ARGS hold
// --steps, its own account of what it ran in TRUTH), the way a user records a job.
#include <string>
#include <vector>

#include "tests/support/subprocess.h"

namespace bubblescope::testing {

ProcessResult recordEngineRun(const std::string& outDir, const std::string& truthPath,
                              const std::vector<std::string>& engineArgs);

// The same run with another bubblescope program (an installed one) recording and running it.
ProcessResult recordEngineRunWith(const std::string& program, const std::string& outDir,
                                  const std::string& truthPath,
                                  const std::vector<std::string>& engineArgs,
                                  const ProcessOptions& options = {});

}  // namespace bubblescope::testing
