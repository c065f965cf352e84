#pragma once
// This program's own path and running it again as a child (the demo drives `record` and
// `engine run` as real processes, exactly as a user would type them).
#include <string>
#include <vector>

namespace bubblescope::cli {

std::string selfExecutable();

// Runs argv[0] with the arguments, inheriting stdio; returns its exit code (128 + signal if it
// was killed). Throws std::runtime_error if it cannot be started.
int runChild(const std::vector<std::string>& argv);

}  // namespace bubblescope::cli
