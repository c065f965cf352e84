#include "tests/tracegen/replay_launcher.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "tests/tracegen/replay_clock.h"

namespace bubblescope::tracegen {
namespace {

// From the last rank's "ready" to the origin: time to wake up and reach the first action.
constexpr TimeNs kStartLead = 100'000'000;
// A rank that has not got ready by then is stuck.
constexpr int kReadyTimeoutMs = 60'000;

bool readFully(int fd, void* data, size_t n) {
  auto* p = static_cast<char*>(data);
  while (n > 0) {
    const ssize_t got = read(fd, p, n);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    p += got;
    n -= static_cast<size_t>(got);
  }
  return true;
}

bool writeFully(int fd, const void* data, size_t n) {
  const auto* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t put = write(fd, p, n);
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) return false;
    p += put;
    n -= static_cast<size_t>(put);
  }
  return true;
}

int exitCodeOf(int status) {
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Waits until every rank said it is ready; false if one exited first or none came in time.
bool awaitReady(int fd, size_t ranks, const std::vector<pid_t>& children, std::vector<int>& codes) {
  size_t ready = 0;
  for (int waited = 0; ready < ranks && waited < kReadyTimeoutMs; waited += 100) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 100) > 0) {
      char byte;
      if (read(fd, &byte, 1) == 1) ++ready;
    }
    for (size_t r = 0; r < children.size(); ++r) {
      int status = 0;
      if (codes[r] < 0 && waitpid(children[r], &status, WNOHANG) == children[r]) {
        codes[r] = exitCodeOf(status);
        return false;  // it exited before the job began: the others would wait for it forever
      }
    }
  }
  return ready == ranks;
}

}  // namespace

int launchRanks(const std::string& self, const std::vector<std::string>& plans,
                const std::vector<std::string>& rankArgs) {
  int ready[2], go[2];
  if (pipe(ready) != 0 || pipe(go) != 0) return 1;
  const std::string world = std::to_string(plans.size());
  std::vector<pid_t> children;
  for (size_t rank = 0; rank < plans.size(); ++rank) {
    const pid_t pid = fork();
    if (pid == 0) {
      close(ready[0]);
      close(go[1]);
      const std::string r = std::to_string(rank);
      setenv("RANK", r.c_str(), 1);
      setenv("LOCAL_RANK", r.c_str(), 1);
      setenv("WORLD_SIZE", world.c_str(), 1);
      std::vector<std::string> args = {self, "rank", plans[rank], std::to_string(ready[1]),
                                       std::to_string(go[0])};
      args.insert(args.end(), rankArgs.begin(), rankArgs.end());
      std::vector<char*> argv;
      for (std::string& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(self.c_str(), argv.data());
      std::fprintf(stderr, "agent_replay_app: cannot run %s: %s\n", self.c_str(),
                   std::strerror(errno));
      _exit(127);
    }
    if (pid > 0) children.push_back(pid);
  }
  close(ready[1]);
  close(go[0]);
  std::vector<int> codes(children.size(), -1);
  bool started =
      children.size() == plans.size() && awaitReady(ready[0], plans.size(), children, codes);
  if (started) {
    const TimeNs origin = machineRealtimeNs() + kStartLead;
    for (size_t r = 0; r < children.size() && started; ++r)
      started = writeFully(go[1], &origin, sizeof origin);
  }
  close(go[1]);
  close(ready[0]);
  if (!started) {
    for (size_t r = 0; r < children.size(); ++r) {
      if (codes[r] < 0) kill(children[r], SIGKILL);
    }
  }
  int result = 0;
  for (size_t r = 0; r < children.size(); ++r) {
    int status = 0;
    if (codes[r] < 0) {
      while (waitpid(children[r], &status, 0) < 0 && errno == EINTR) {
      }
      codes[r] = exitCodeOf(status);
    }
    if (codes[r] != 0) {
      std::fprintf(stderr, "agent_replay_app: rank %zu failed (%d)\n", r, codes[r]);
      if (result == 0) result = codes[r];
    }
  }
  return result != 0 ? result : (started ? 0 : 1);
}

TimeNs readyForOrigin(int readyFd, int goFd) {
  const char byte = 'r';
  TimeNs origin = -1;
  if (!writeFully(readyFd, &byte, 1) || !readFully(goFd, &origin, sizeof origin)) return -1;
  close(readyFd);
  close(goFd);
  return origin;
}

}  // namespace bubblescope::tracegen
