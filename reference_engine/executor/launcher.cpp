#include "reference_engine/executor/launcher.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <sstream>
#include <stdexcept>

#include "reference_engine/executor/clock.h"
#include "reference_engine/executor/exit_status.h"
#include "reference_engine/executor/worker.h"

extern char** environ;

namespace bubblescope::engine {
namespace {

// How long stopped stages get to exit on SIGTERM (a profiler agent flushes its trace) before
// SIGKILL.
constexpr int64_t kStopGraceNs = 3'000'000'000;

struct Prepared {
  std::vector<std::string> argv, env;
  std::vector<char*> argvPtrs, envPtrs;
  std::vector<int> fds;  // this stage's channel ends
};

std::vector<std::string> mergedEnvironment(const std::vector<std::string>& extra) {
  std::map<std::string, std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string kv = *e;
    env[kv.substr(0, kv.find('='))] = kv;
  }
  for (const auto& kv : extra) env[kv.substr(0, kv.find('='))] = kv;
  std::vector<std::string> out;
  for (auto& [k, kv] : env) out.push_back(std::move(kv));
  return out;
}

// Blocks the signals the launcher waits for, and delivers them through a file descriptor.
class SignalWatch {
 public:
  SignalWatch() {
    sigset_t set;
    sigemptyset(&set);
    for (int s : {SIGCHLD, SIGINT, SIGTERM, SIGHUP}) sigaddset(&set, s);
    if (sigprocmask(SIG_BLOCK, &set, &saved_) != 0) throw std::runtime_error("sigprocmask failed");
    fd_ = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
    if (fd_ < 0) {
      sigprocmask(SIG_SETMASK, &saved_, nullptr);
      throw std::runtime_error(std::string("signalfd: ") + std::strerror(errno));
    }
  }
  ~SignalWatch() {
    ::close(fd_);
    sigprocmask(SIG_SETMASK, &saved_, nullptr);
  }
  SignalWatch(const SignalWatch&) = delete;
  SignalWatch& operator=(const SignalWatch&) = delete;

  const sigset_t& savedMask() const { return saved_; }

  // Waits until a signal arrives or `deadlineNs` (monotonic) passes. Returns the first
  // interrupting signal (SIGINT, SIGTERM, SIGHUP) received, or 0.
  int wait(int64_t deadlineNs) {
    const int64_t left = deadlineNs - monotonicNs();
    if (left <= 0) return 0;
    // In a program with other threads a SIGCHLD may be taken by one of them and never reach the
    // signalfd: look at the stages at least every 100 ms anyway.
    pollfd p{fd_, POLLIN, 0};
    ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left / 1'000'000 + 1, 100)));
    int interrupt = 0;
    signalfd_siginfo info;
    while (::read(fd_, &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
      if (info.ssi_signo != SIGCHLD && interrupt == 0) interrupt = static_cast<int>(info.ssi_signo);
    }
    return interrupt;
  }

 private:
  sigset_t saved_{};
  int fd_ = -1;
};

struct Ended {
  int stage;
  int pid;
  int status;
};

class StageGroup {
 public:
  explicit StageGroup(std::vector<int> pids) : pids_(std::move(pids)) {
    for (size_t s = 0; s < pids_.size(); ++s) alive_[pids_[s]] = static_cast<int>(s);
  }

  bool empty() const { return alive_.empty(); }

  // Reaps every stage that has ended.
  std::vector<Ended> reap() {
    std::vector<Ended> ended;
    for (auto it = alive_.begin(); it != alive_.end();) {
      int status = 0;
      pid_t r = ::waitpid(it->first, &status, WNOHANG);
      if (r == it->first || (r < 0 && errno == ECHILD)) {
        ended.push_back({it->second, it->first, status});
        it = alive_.erase(it);
      } else {
        ++it;
      }
    }
    return ended;
  }

  std::string aliveList() const {
    std::map<int, int> byStage;
    for (auto [pid, stage] : alive_) byStage[stage] = pid;
    std::string s;
    for (auto [stage, pid] : byStage) s += (s.empty() ? "" : ", ") + std::to_string(stage);
    return s;
  }

  // SIGTERM to every live stage, SIGKILL after the grace period; returns when all are reaped.
  std::vector<Ended> stop(SignalWatch& signals) {
    std::vector<Ended> ended;
    for (auto [pid, stage] : alive_) ::kill(pid, SIGTERM);
    const int64_t deadline = monotonicNs() + kStopGraceNs;
    while (!alive_.empty() && monotonicNs() < deadline) {
      for (auto& e : reap()) ended.push_back(e);
      if (!alive_.empty()) signals.wait(deadline);
    }
    for (auto [pid, stage] : alive_) ::kill(pid, SIGKILL);
    for (auto [pid, stage] : alive_) {
      int status = 0;
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      ended.push_back({stage, pid, status});
    }
    alive_.clear();
    return ended;
  }

 private:
  std::vector<int> pids_;
  std::map<int, int> alive_;  // pid → stage
};

bool failed(const Ended& e) {
  return !(WIFEXITED(e.status) && WEXITSTATUS(e.status) == 0);
}
bool lostPeer(const Ended& e) {
  return WIFEXITED(e.status) && WEXITSTATUS(e.status) == kStageLostPeerExit;
}

// The stage that ended first for a reason of its own; a stage that only lost its neighbour is
// named when no other is found.
const Ended& culprit(const std::vector<Ended>& failures) {
  for (const Ended& e : failures) {
    if (!lostPeer(e)) return e;
  }
  return failures.front();
}

void closeAll(std::vector<Prepared>& stages) {
  for (auto& st : stages) {
    for (int fd : st.fds) ::close(fd);
    st.fds.clear();
  }
}

}  // namespace

LaunchOutcome launchStages(const StageLaunch& launch) {
  const int n = launch.stages;
  std::vector<Prepared> stages(static_cast<size_t>(n));
  std::vector<std::vector<std::pair<int, int>>> channels(static_cast<size_t>(n));
  for (auto [a, b] : launch.channelPairs) {
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
      closeAll(stages);
      throw std::runtime_error(std::string("socketpair: ") + std::strerror(errno));
    }
    channels[static_cast<size_t>(a)].push_back({b, sv[0]});
    channels[static_cast<size_t>(b)].push_back({a, sv[1]});
    stages[static_cast<size_t>(a)].fds.push_back(sv[0]);
    stages[static_cast<size_t>(b)].fds.push_back(sv[1]);
  }
  // Everything the children need is built before fork: between fork and exec only
  // async-signal-safe calls are allowed.
  for (int s = 0; s < n; ++s) {
    Prepared& st = stages[static_cast<size_t>(s)];
    st.argv = launch.argv(s, channels[static_cast<size_t>(s)]);
    st.env = mergedEnvironment(launch.environment(s));
    for (auto& a : st.argv) st.argvPtrs.push_back(a.data());
    st.argvPtrs.push_back(nullptr);
    for (auto& e : st.env) st.envPtrs.push_back(e.data());
    st.envPtrs.push_back(nullptr);
  }

  LaunchOutcome outcome;
  SignalWatch signals;
  const pid_t launcher = ::getpid();
  for (int s = 0; s < n; ++s) {
    Prepared& st = stages[static_cast<size_t>(s)];
    const pid_t pid = ::fork();
    if (pid < 0) {
      const std::string why = std::strerror(errno);
      closeAll(stages);
      StageGroup(outcome.pids).stop(signals);
      throw std::runtime_error("fork: " + why);
    }
    if (pid == 0) {
      // The stage dies with the launcher, even if the launcher is killed by SIGKILL.
      ::prctl(PR_SET_PDEATHSIG, SIGTERM);
      if (::getppid() != launcher) ::_exit(kStageFailedExit);
      ::sigprocmask(SIG_SETMASK, &signals.savedMask(), nullptr);
      for (int fd : st.fds) ::fcntl(fd, F_SETFD, 0);  // inherited across exec; all others close
      ::execve(st.argvPtrs[0], st.argvPtrs.data(), st.envPtrs.data());
      const char msg[] = "bubblescope: engine: cannot execute the worker program\n";
      [[maybe_unused]] auto w = ::write(2, msg, sizeof msg - 1);
      ::_exit(127);
    }
    outcome.pids.push_back(pid);
  }
  // Only the stages hold channel ends now: a stage that dies closes them, and its peers see EOF.
  closeAll(stages);

  StageGroup group(outcome.pids);
  const int64_t deadline =
      monotonicNs() + static_cast<int64_t>(std::min(launch.timeoutSeconds, 1e9) * 1e9);
  std::vector<Ended> failures;
  int interrupt = 0;
  bool timedOut = false;
  while (!group.empty()) {
    for (const Ended& e : group.reap()) {
      if (failed(e)) failures.push_back(e);
    }
    if (!failures.empty() || group.empty()) break;
    interrupt = signals.wait(deadline);
    if (interrupt != 0) break;
    if (monotonicNs() >= deadline) {
      timedOut = true;
      break;
    }
  }
  const std::string stillRunning = group.aliveList();
  if (!group.empty()) {
    for (const Ended& e : group.stop(signals)) {
      // A stage that died of something other than our stop signal may be the real cause.
      if (WIFSIGNALED(e.status) && WTERMSIG(e.status) != SIGTERM && WTERMSIG(e.status) != SIGKILL) {
        failures.push_back(e);
      }
    }
  }

  if (interrupt != 0) {
    const char* abbrev = sigabbrev_np(interrupt);
    outcome.failure =
        "interrupted by " +
        (abbrev ? "SIG" + std::string(abbrev) : "signal " + std::to_string(interrupt)) +
        "; stopped the stages";
  } else if (timedOut) {
    std::ostringstream seconds;
    seconds << launch.timeoutSeconds;
    outcome.failure = "timed out after " + seconds.str() + " s with stage(s) " + stillRunning +
                      " still running; stopped the stages";
  } else if (!failures.empty()) {
    const Ended& e = culprit(failures);
    outcome.failure = "stage " + std::to_string(e.stage) + " (pid " + std::to_string(e.pid) + ") " +
                      describeExit(e.status) + (n > 1 ? "; stopped the other stages" : "");
  } else {
    outcome.ok = true;
  }
  return outcome;
}

}  // namespace bubblescope::engine
