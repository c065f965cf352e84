#pragma once
// How a stage process ended, in words for the one line the launcher prints. Pure.
#include <string>

namespace bubblescope::engine {

// "was killed by signal 6 (Aborted)", "exited with status 1". `status` is waitpid's.
std::string describeExit(int status);

}  // namespace bubblescope::engine
