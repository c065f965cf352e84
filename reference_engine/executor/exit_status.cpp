#include "reference_engine/executor/exit_status.h"

#include <string.h>
#include <sys/wait.h>

#include "reference_engine/executor/worker.h"

namespace bubblescope::engine {

std::string describeExit(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    std::string s = "was killed by signal " + std::to_string(sig);
    if (const char* name = sigdescr_np(sig)) s += std::string(" (") + name + ")";
    return s;
  }
  if (WIFEXITED(status)) {
    const int code = WEXITSTATUS(status);
    std::string s = "exited with status " + std::to_string(code);
    if (code == kStageLostPeerExit) s += " (a neighbouring stage closed its channel)";
    if (code == 127) s += " (the worker program could not be started)";
    return s;
  }
  return "ended with wait status " + std::to_string(status);
}

}  // namespace bubblescope::engine
