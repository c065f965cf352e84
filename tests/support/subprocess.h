#pragma once
// Runs a program as a real child process and captures its exit code and output: the CLI tests
// exercise the `bubblescope` binary exactly as a user would.
#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace bubblescope::testing {

struct ProcessResult {
  int exitCode = -1;    // exit status, or 128 + signal if killed by a signal
  bool timedOut = false;
  std::string out;      // stdout
  std::string err;      // stderr
};

struct ProcessOptions {
  std::map<std::string, std::string> env;  // added to (or replacing in) the inherited environment
  std::vector<std::string> unsetEnv;
  std::string workingDir;
  std::chrono::seconds timeout{120};
};

ProcessResult runProcess(const std::vector<std::string>& argv, const ProcessOptions& options = {});

// For a command expected to refuse its input at once: 20 s at most, and a DISPLAY no window can
// open on (`view` never needs one to refuse an input).
ProcessOptions refusalOptions();

// `argv` as run under a file size limit of `kib` KiB (SIGXFSZ ignored): its writes beyond the limit
// fail as they would on a full disk.
std::vector<std::string> underFileSizeLimit(const std::vector<std::string>& argv, int kib);

// The bubblescope binary built with the tests, then `args`.
std::vector<std::string> bubblescopeArgv(const std::vector<std::string>& args);

// Runs the bubblescope binary built with the tests.
ProcessResult runBubblescope(const std::vector<std::string>& args,
                             const ProcessOptions& options = {});

}  // namespace bubblescope::testing
