#include "tests/support/engine_recording.h"

#include <algorithm>

namespace bubblescope::testing {

ProcessResult recordEngineRunWith(const std::string& program, const std::string& outDir,
                                  const std::string& truthPath,
                                  const std::vector<std::string>& engineArgs,
                                  const ProcessOptions& options) {
  std::vector<std::string> cmd = {program,   "record",  "-o",  outDir,    "--",
                                  program,   "engine",  "run", "--op-ms", "4,4,4",
                                  "--truth", truthPath, "-q"};
  // 4 steps unless the test asks for more (the engine takes --steps once).
  if (std::find(engineArgs.begin(), engineArgs.end(), "--steps") == engineArgs.end()) {
    cmd.insert(cmd.end(), {"--steps", "4"});
  }
  cmd.insert(cmd.end(), engineArgs.begin(), engineArgs.end());
  return runProcess(cmd, options);
}

ProcessResult recordEngineRun(const std::string& outDir, const std::string& truthPath,
                              const std::vector<std::string>& engineArgs) {
  return recordEngineRunWith(BUBBLESCOPE_BIN, outDir, truthPath, engineArgs);
}

}  // namespace bubblescope::testing
