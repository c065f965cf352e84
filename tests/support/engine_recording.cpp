#include "tests/support/engine_recording.h"

namespace bubblescope::testing {

ProcessResult recordEngineRun(const std::string& outDir, const std::string& truthPath,
                              const std::vector<std::string>& engineArgs) {
  std::vector<std::string> cmd = {"record", "-o",      outDir,    "--",    BUBBLESCOPE_BIN,
                                  "engine", "run",     "--op-ms", "4,4,4", "--steps",
                                  "4",      "--truth", truthPath, "-q"};
  cmd.insert(cmd.end(), engineArgs.begin(), engineArgs.end());
  return runBubblescope(cmd);
}

}  // namespace bubblescope::testing
