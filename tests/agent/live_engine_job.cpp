#include "tests/agent/live_engine_job.h"

#include <algorithm>

#include "tests/agent/agent_test_support.h"

namespace bubblescope::testing {

namespace fs = std::filesystem;

std::vector<std::string> engineRunArgv(const fs::path& truth,
                                       const std::vector<std::string>& extra) {
  std::vector<std::string> argv = {BUBBLESCOPE_BIN,
                                   "engine",
                                   "run",
                                   "--schedule",
                                   "1f1b",
                                   "-p",
                                   std::to_string(LiveEngineJob::kStages),
                                   "-m",
                                   "8",
                                   "-q",
                                   "--truth",
                                   truth.string()};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return argv;
}

ProcessOptions runtimeDirEnv(const fs::path& rt, std::chrono::seconds timeout) {
  ProcessOptions o = cleanEnv({{"BUBBLESCOPE_RUNTIME_DIR", rt.string()}});
  o.unsetEnv.push_back("XDG_RUNTIME_DIR");
  o.unsetEnv.push_back("LD_LIBRARY_PATH");
  o.timeout = timeout;
  return o;
}

LiveEngineJob::LiveEngineJob(const std::vector<std::string>& engineArgs, bool dormant,
                             int listening) {
  std::vector<std::string> argv = {BUBBLESCOPE_BIN, "record", "--dormant", "-o",
                                   run().string(),  "--"};
  const std::vector<std::string> engine = engineRunArgv(truth(), engineArgs);
  argv.insert(argv.end(), engine.begin(), engine.end());
  if (!dormant) argv.erase(argv.begin() + 2);  // "--dormant"
  fs::create_directories(dir_ / "logs");
  fs::create_directories(dir_ / "rt");
  fs::permissions(dir_ / "rt", fs::perms::owner_all);
  ProcessOptions job = env();
  job.workingDir = dir_.path().string();
  job_ = std::make_unique<BackgroundProcess>(argv, job, dir_ / "logs");
  eventually(
      [&] {
        const ProcessResult ps = runBubblescope({"ps"}, env());
        return std::count(ps.out.begin(), ps.out.end(), '\n') >= listening + 1;  // and a header
      },
      std::chrono::seconds(20));
}

ProcessOptions LiveEngineJob::env() const {
  return runtimeDirEnv(dir_ / "rt", std::chrono::seconds(60));
}

int LiveEngineJob::wait() {
  return job_->wait(std::chrono::seconds(60));
}

}  // namespace bubblescope::testing
