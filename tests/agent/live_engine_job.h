#pragma once
// A reference-engine job that runs while a test watches it: `bubblescope record [--dormant] -o
// DIR/run -- bubblescope engine run --schedule 1f1b -p 4 -m 8 -q --truth DIR/truth.json ARGS...`
// in a runtime directory of its own, so `--all` finds only its processes. Constructed once every
// stage has its control socket. Shared by the live tests of watch and view --attach.
#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "tests/agent/background_process.h"
#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"

namespace bubblescope::testing {

// `bubblescope engine run` of the live tests' pipeline (1F1B, LiveEngineJob::kStages stages, 8
// microbatches, quiet), its truth to `truth`, then `extra`.
std::vector<std::string> engineRunArgv(const std::filesystem::path& truth,
                                       const std::vector<std::string>& extra);

// A command's environment that finds the processes of the runtime directory `rt` alone (and no
// inherited one), with `timeout`.
ProcessOptions runtimeDirEnv(const std::filesystem::path& rt, std::chrono::seconds timeout);

class LiveEngineJob {
 public:
  static constexpr int kStages = 4;

  // `engineArgs` follow the fixed ones (--op-ms, --steps, faults). `dormant` false: under a plain
  // `record`, recording to files from the start. Returns once `listening` processes answer (a
  // job with a --late-start stage: fewer than all).
  explicit LiveEngineJob(const std::vector<std::string>& engineArgs, bool dormant = true,
                         int listening = kStages);

  // The job's runtime directory, and no inherited one, for every command that looks for it.
  ProcessOptions env() const;
  std::filesystem::path dir() const { return dir_.path(); }
  std::filesystem::path run() const { return dir_ / "run"; }
  std::filesystem::path truth() const { return dir_ / "truth.json"; }
  // The job's exit code, or -1 if it still runs after a minute.
  int wait();
  std::string log() const { return job_->err(); }

 private:
  TempDir dir_;
  std::unique_ptr<BackgroundProcess> job_;
};

}  // namespace bubblescope::testing
