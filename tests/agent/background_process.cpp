#include "tests/agent/background_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <stdexcept>
#include <thread>

#include "tests/support/temp_dir.h"

extern char** environ;

namespace bubblescope::testing {

BackgroundProcess::BackgroundProcess(const std::vector<std::string>& argv,
                                     const ProcessOptions& options,
                                     const std::filesystem::path& logDir)
    : outFile_(logDir / "stdout.txt"), errFile_(logDir / "stderr.txt") {
  std::map<std::string, std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string kv = *e;
    const size_t eq = kv.find('=');
    if (eq != std::string::npos) env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  for (const auto& key : options.unsetEnv) env.erase(key);
  for (const auto& [k, v] : options.env) env[k] = v;
  std::vector<std::string> envStrings, argvCopy = argv;
  for (const auto& [k, v] : env) envStrings.push_back(k + "=" + v);
  std::vector<char*> envp, args;
  for (auto& s : envStrings) envp.push_back(s.data());
  envp.push_back(nullptr);
  for (auto& a : argvCopy) args.push_back(a.data());
  args.push_back(nullptr);
  const int out = ::open(outFile_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  const int err = ::open(errFile_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (out < 0 || err < 0) throw std::runtime_error("cannot create the logs in " + logDir.string());
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid_ == 0) {
    ::setpgid(0, 0);
    ::dup2(out, 1);
    ::dup2(err, 2);
    if (!options.workingDir.empty() && ::chdir(options.workingDir.c_str()) != 0) ::_exit(127);
    ::execve(args[0], args.data(), envp.data());
    ::_exit(127);
  }
  ::setpgid(pid_, pid_);
  ::close(out);
  ::close(err);
}

BackgroundProcess::~BackgroundProcess() {
  // The whole group: children may outlive the process that started them.
  ::kill(-pid_, SIGKILL);
  if (running()) wait(std::chrono::seconds(10));
}

bool BackgroundProcess::running() {
  if (exitCode_ >= 0) return false;
  int status = 0;
  const pid_t got = ::waitpid(pid_, &status, WNOHANG);
  if (got == 0) return true;
  if (got == pid_) {
    exitCode_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  return false;
}

int BackgroundProcess::wait(std::chrono::seconds timeout) {
  eventually([this] { return !running(); }, timeout);
  return exitCode_;
}

std::string BackgroundProcess::out() const {
  return readFile(outFile_);
}

std::string BackgroundProcess::err() const {
  return readFile(errFile_);
}

bool eventually(const std::function<bool()>& condition, std::chrono::seconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (condition()) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace bubblescope::testing
