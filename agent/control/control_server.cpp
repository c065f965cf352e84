#include "agent/control/control_server.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

#include "agent/core/agent_thread.h"
#include "agent/core/clock.h"
#include "agent/core/log.h"
#include "agent/core/owned_fd.h"
#include "agent/core/writer.h"

namespace bubblescope::agent {
namespace {

constexpr int64_t kTickNs = 100'000'000;                 // step counter sampling, longest poll
constexpr int64_t kConnectionTimeoutNs = 2'000'000'000;  // to send a line and take the reply
// A snapshot's bytes get this much more time per MiB (a reader slower than 64 MiB/s is given up).
constexpr int64_t kPayloadNsPerMiB = 1'000'000'000 / 64;
constexpr int kMaxConnections = 16;
constexpr int kBacklog = 128;

struct Connection {
  int64_t deadlineNs = 0;
  std::string in;
  std::string out;
  size_t written = 0;
  std::string payload;  // a snapshot's image, sent after `out`
  size_t payloadWritten = 0;
  bool replied = false;
};

// A reply written without waiting (refusals, "busy"): the client's socket buffer takes it.
void sendNow(int fd, const std::string& text) {
  ssize_t ignored = ::send(fd, text.data(), text.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  (void)ignored;
}

std::string refusalLine(const std::string& message) {
  control::Reply r;
  r.fields["message"] = message;
  return control::formatReply(r);
}

class ControlServer {
 public:
  ControlServer(const ControlIdentity& identity, control::LiveSnapshot (*liveSource)())
      : handler_(Recorder::instance(), identity), ownerPid_(static_cast<pid_t>(identity.pid)) {
    for (auto& fd : connFds_) fd.store(-1);
    handler_.setFileLookup([] { return writerStats().file; });
    handler_.setLiveSnapshotSource(liveSource);
    handler_.setMemoryImageSource(&memoryWindowImage);
    handler_.setWriterFlush(&flushWriter);
  }

  bool open(const control::DirEnvironment& env);
  bool startThread();
  void stop();
  void closeInForkChild() { closeDescriptors(); }
  const std::string& path() const { return path_; }

 private:
  void run();
  void loop();
  void acceptAll(int64_t nowNs);
  bool peerAllowed(int fd);
  // Reads, answers, writes; false when the connection is finished.
  bool service(int slot, short revents, int64_t nowNs);
  bool sendingSnapshot() const;
  void closeSlot(int slot);
  void fail(const std::string& what);
  void closeDescriptors();
  bool descriptorsIntact() const;
  void forgetDescriptors();

  ControlHandler handler_;
  pid_t ownerPid_;
  std::string path_;
  std::atomic<int> listenFd_{-1};
  std::atomic<int> wakeFd_{-1};
  std::atomic<int> connFds_[kMaxConnections];
  // What each descriptor was opened on, set before it is published: a number the job closed and
  // opened again is its file, never polled, written or closed here.
  OwnedFd listenOwned_, wakeOwned_;
  OwnedFd connOwned_[kMaxConnections];
  Connection conns_[kMaxConnections];
  std::atomic<bool> stopping_{false};
};

void ControlServer::fail(const std::string& what) {
  warnOnce(Problem::ControlUnavailable,
           "%s: attach is unavailable in this process, the job goes on", what.c_str());
}

bool ControlServer::open(const control::DirEnvironment& env) {
  const uid_t uid = ::geteuid();
  std::filesystem::path dir;
  std::string firstProblem;
  for (const auto& candidate : control::agentRuntimeDirs(env, uid)) {
    std::string why;
    if (control::prepareRuntimeDir(candidate, uid, &why)) {
      dir = candidate;
      break;
    }
    if (firstProblem.empty())
      firstProblem = "control socket directory " + candidate.string() + " " + why;
  }
  if (dir.empty()) {
    fail(firstProblem);
    return false;
  }
  path_ = (dir / control::socketFileName(ownerPid_)).string();
  // Bound under a temporary name and renamed when listening: a client never finds the socket
  // before it answers, and a stale one of an earlier process with this pid is replaced at once.
  const std::string fresh = (dir / ("." + control::socketFileName(ownerPid_) + ".new")).string();
  if (fresh.size() > control::kMaxSocketPath) {
    fail("control socket path " + path_ + " is too long for a Unix socket");
    return false;
  }
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    fail(std::string("cannot create the control socket (") + std::strerror(errno) + ")");
    return false;
  }
  sockaddr_un addr = {};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, fresh.c_str(), fresh.size() + 1);
  ::unlink(fresh.c_str());
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0 ||
      ::chmod(fresh.c_str(), 0600) != 0 || ::listen(fd, kBacklog) != 0 ||
      ::rename(fresh.c_str(), path_.c_str()) != 0) {
    const int err = errno;
    ::unlink(fresh.c_str());
    ::close(fd);
    fail("cannot create the control socket " + path_ + " (" + std::strerror(err) + ")");
    return false;
  }
  const int wake = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake < 0) {
    ::unlink(path_.c_str());
    ::close(fd);
    fail(std::string("cannot create the control thread's event (") + std::strerror(errno) + ")");
    return false;
  }
  listenOwned_ = OwnedFd::of(fd);
  wakeOwned_ = OwnedFd::of(wake);
  listenFd_.store(fd);
  wakeFd_.store(wake);
  return true;
}

bool ControlServer::startThread() {
  pthread_t thread;
  const int rc = startAgentThread(
      [](void* self) -> void* {
        static_cast<ControlServer*>(self)->run();
        return nullptr;
      },
      this, 256 * 1024, &thread);
  if (rc != 0) {
    ::unlink(path_.c_str());
    closeDescriptors();
    fail(std::string("cannot start the control thread (") + std::strerror(rc) + ")");
    return false;
  }
  pthread_setname_np(thread, "bubblescope-ctl");
  return true;
}

void ControlServer::run() {
  try {
    loop();
  } catch (...) {
    warnOnce(Problem::Internal,
             "internal error in the control thread: attach is unavailable, "
             "the job goes on");
    if (::getpid() == ownerPid_) ::unlink(path_.c_str());
  }
  for (int slot = 0; slot < kMaxConnections; ++slot) closeSlot(slot);
}

void ControlServer::loop() {
  int64_t lastTick = 0;
  while (!stopping_.load(std::memory_order_acquire)) {
    if (!descriptorsIntact()) {
      // The job closed the agent's descriptors (close_range): attach ends in this process, and
      // the numbers, perhaps the job's files now, are left alone.
      forgetDescriptors();
      return;
    }
    pollfd fds[2 + kMaxConnections];
    int slotOf[2 + kMaxConnections];
    int n = 0;
    fds[n++] = {listenFd_.load(), POLLIN, 0};
    fds[n++] = {wakeFd_.load(), POLLIN, 0};
    int64_t now = monotonicNs();
    int64_t waitNs = kTickNs - std::min(kTickNs, now - lastTick);
    for (int slot = 0; slot < kMaxConnections; ++slot) {
      const int fd = connFds_[slot].load(std::memory_order_relaxed);
      if (fd < 0) continue;
      slotOf[n] = slot;
      fds[n++] = {fd, static_cast<short>(conns_[slot].replied ? POLLOUT : POLLIN), 0};
      waitNs = std::min(waitNs, std::max<int64_t>(0, conns_[slot].deadlineNs - now));
    }
    const int rc = ::poll(fds, static_cast<nfds_t>(n), static_cast<int>(waitNs / 1'000'000) + 1);
    if (rc < 0 && errno != EINTR) throw std::runtime_error("poll");
    if (fds[1].revents != 0 || stopping_.load(std::memory_order_acquire)) return;
    now = monotonicNs();
    if (now - lastTick >= kTickNs) {
      refreshCoarseTicks();
      handler_.tick(now);
      lastTick = now;
    }
    for (int i = 2; i < n; ++i) {
      const int slot = slotOf[i];
      if (now >= conns_[slot].deadlineNs || !service(slot, fds[i].revents, now)) closeSlot(slot);
    }
    if ((fds[0].revents & POLLIN) != 0) acceptAll(now);
  }
}

bool ControlServer::peerAllowed(int fd) {
  ucred cred = {};
  socklen_t len = sizeof cred;
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return false;
  const uid_t self = ::geteuid();
  if (cred.uid == self || cred.uid == 0) return true;
  warnOnce(Problem::ControlRefused,
           "refused a control connection from uid %u (pid %d): only uid %u and root may control "
           "this process",
           static_cast<unsigned>(cred.uid), static_cast<int>(cred.pid),
           static_cast<unsigned>(self));
  sendNow(fd, refusalLine("permission denied: uid " + std::to_string(cred.uid) +
                          " may not control a process of uid " + std::to_string(self)));
  return false;
}

void ControlServer::acceptAll(int64_t nowNs) {
  for (;;) {
    const int fd = ::accept4(listenFd_.load(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;  // EAGAIN, or an error the next poll shows again
    if (!peerAllowed(fd)) {
      ::close(fd);
      continue;
    }
    int slot = 0;
    while (slot < kMaxConnections && connFds_[slot].load(std::memory_order_relaxed) >= 0) ++slot;
    if (slot == kMaxConnections) {
      sendNow(fd, refusalLine("busy: too many control connections at once, try again"));
      ::close(fd);
      continue;
    }
    conns_[slot] = Connection{};
    conns_[slot].deadlineNs = nowNs + kConnectionTimeoutNs;
    connOwned_[slot] = OwnedFd::of(fd);
    connFds_[slot].store(fd, std::memory_order_relaxed);
  }
}

bool ControlServer::service(int slot, short revents, int64_t nowNs) {
  Connection& c = conns_[slot];
  const int fd = connFds_[slot].load(std::memory_order_relaxed);
  if (!c.replied) {
    if ((revents & (POLLIN | POLLHUP | POLLERR)) == 0) return true;
    char buf[control::kMaxRequestBytes + 1];
    const ssize_t got = ::recv(fd, buf, sizeof buf, 0);
    if (got < 0) return errno == EAGAIN || errno == EINTR;
    if (got == 0) return false;  // the client left without a whole line
    c.in.append(buf, static_cast<size_t>(got));
    const size_t eol = c.in.find('\n');
    if (eol == std::string::npos && c.in.size() < control::kMaxRequestBytes) return true;
    if (eol == std::string::npos || eol >= control::kMaxRequestBytes) {
      c.out = refusalLine("request longer than " + std::to_string(control::kMaxRequestBytes) +
                          " bytes");
    } else if (sendingSnapshot() && std::string_view(c.in).substr(0, eol).find("snapshot") == 0) {
      // One image in flight at a time: the agent's memory stays bounded whoever asks.
      c.out = refusalLine("busy: another snapshot is being sent, try again");
    } else {
      c.out = control::formatReply(
          handler_.handle(std::string_view(c.in).substr(0, eol), nowNs, &c.payload));
      // The snapshot may have waited for the writer: the bytes get time of their own.
      const int64_t now = monotonicNs();
      c.deadlineNs = now + kConnectionTimeoutNs +
                     static_cast<int64_t>(c.payload.size() >> 20) * kPayloadNsPerMiB;
    }
    c.replied = true;
  }
  // The reply line, then the payload (if any), as far as the socket takes them now.
  for (;;) {
    const bool line = c.written < c.out.size();
    const char* data = line ? c.out.data() + c.written : c.payload.data() + c.payloadWritten;
    const size_t left = line ? c.out.size() - c.written : c.payload.size() - c.payloadWritten;
    if (left == 0) return false;  // all sent
    const ssize_t sent = ::send(fd, data, left, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (sent < 0) return errno == EAGAIN || errno == EINTR;
    (line ? c.written : c.payloadWritten) += static_cast<size_t>(sent);
  }
}

bool ControlServer::sendingSnapshot() const {
  for (int slot = 0; slot < kMaxConnections; ++slot) {
    if (connFds_[slot].load(std::memory_order_relaxed) >= 0 && !conns_[slot].payload.empty()) {
      return true;
    }
  }
  return false;
}

void ControlServer::closeSlot(int slot) {
  const int fd = connFds_[slot].exchange(-1);
  if (fd >= 0 && connOwned_[slot].intact()) ::close(fd);
  conns_[slot] = Connection{};
}

bool ControlServer::descriptorsIntact() const {
  if (!listenOwned_.intact() || !wakeOwned_.intact()) return false;
  for (int slot = 0; slot < kMaxConnections; ++slot) {
    if (connFds_[slot].load(std::memory_order_relaxed) >= 0 && !connOwned_[slot].intact()) {
      return false;
    }
  }
  return true;
}

void ControlServer::forgetDescriptors() {
  listenFd_.store(-1);
  wakeFd_.store(-1);
  for (int slot = 0; slot < kMaxConnections; ++slot) closeSlot(slot);  // the intact ones only
  if (::getpid() == ownerPid_) ::unlink(path_.c_str());  // nobody listens on it any more
}

void ControlServer::stop() {
  if (::getpid() == ownerPid_) ::unlink(path_.c_str());
  stopping_.store(true, std::memory_order_release);
  const int wake = wakeFd_.load();
  if (wake >= 0 && wakeOwned_.intact()) {
    const uint64_t one = 1;
    ssize_t ignored = ::write(wake, &one, sizeof one);
    (void)ignored;
  }
}

void ControlServer::closeDescriptors() {
  stopping_.store(true);
  for (auto [fd, owned] :
       {std::pair{&listenFd_, &listenOwned_}, std::pair{&wakeFd_, &wakeOwned_}}) {
    const int old = fd->exchange(-1);
    if (old >= 0 && owned->intact()) ::close(old);
  }
  for (int slot = 0; slot < kMaxConnections; ++slot) {
    const int old = connFds_[slot].exchange(-1);
    if (old >= 0 && connOwned_[slot].intact()) ::close(old);
  }
}

// Leaked, never destroyed: the thread may run while the process exits.
std::atomic<ControlServer*> g_server{nullptr};

}  // namespace

bool startControlServer(const ControlIdentity& identity, const control::DirEnvironment& env,
                        control::LiveSnapshot (*liveSource)()) {
  if (g_server.load() != nullptr) return false;
  auto* server = new ControlServer(identity, liveSource);
  if (!server->open(env)) return false;  // leaked with its (closed) descriptors: a few bytes
  // The step counter runs from now on, so an attach can ask every rank for its current step.
  Recorder::instance().trackSteps(true);
  g_server.store(server);  // before the thread: a fork from now on closes its descriptors
  if (!server->startThread()) {
    g_server.store(nullptr);
    return false;
  }
  return true;
}

void stopControlServer() {
  if (ControlServer* s = g_server.load()) s->stop();
}

void controlServerChildAfterFork() {
  // The thread did not survive the fork; its descriptors did, and must not keep the parent's
  // listening socket or its clients' connections open.
  if (ControlServer* s = g_server.exchange(nullptr)) s->closeInForkChild();
}

std::string controlSocketPath() {
  const ControlServer* s = g_server.load();
  return s != nullptr ? s->path() : std::string();
}

}  // namespace bubblescope::agent
