#pragma once
// A child process that keeps running while a test talks to it (the attach tests run a dormant
// job and attach to it). Its output goes to files, so a chatty child never blocks on a pipe.
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "tests/support/subprocess.h"

namespace bubblescope::testing {

class BackgroundProcess {
 public:
  // Starts argv in its own process group; stdout and stderr go to files in `logDir`.
  BackgroundProcess(const std::vector<std::string>& argv, const ProcessOptions& options,
                    const std::filesystem::path& logDir);
  ~BackgroundProcess();  // kills what is left of its process group
  BackgroundProcess(const BackgroundProcess&) = delete;
  BackgroundProcess& operator=(const BackgroundProcess&) = delete;

  pid_t pid() const { return pid_; }
  bool running();
  // The exit code (128 + signal if killed), or -1 if it still runs after `timeout`.
  int wait(std::chrono::seconds timeout);
  std::string out() const;
  std::string err() const;

 private:
  pid_t pid_ = -1;
  int exitCode_ = -1;
  std::filesystem::path outFile_, errFile_;
};

// Calls `condition` every 50 ms until it holds or `timeout` passes; whether it held.
bool eventually(const std::function<bool()>& condition, std::chrono::seconds timeout);

}  // namespace bubblescope::testing
