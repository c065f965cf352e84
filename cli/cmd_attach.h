#pragma once
// `bubblescope attach` and `detach`: start and stop capture in processes recorded with
// --dormant. The command line (cli/command_line.cpp) fills the arguments.
#include <cstdint>

#include "cli/attach_session.h"

namespace bubblescope::cli {

struct AttachArgs {
  TargetArgs targets;
  int64_t steps = 0;
  double duration = 0;
  bool wait = false;
};

int runAttach(const AttachArgs& a);
int runDetach(const TargetArgs& a);

}  // namespace bubblescope::cli
