#include "agent/control/client.h"

#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

namespace bubblescope::control {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr size_t kMaxOpen = 256;                              // connections open at once
constexpr auto kBacklogRetry = std::chrono::milliseconds(5);  // a full listen queue: try again

int64_t bootTimeSeconds() {
  std::ifstream in("/proc/stat");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("btime ", 0) == 0) return std::stoll(line.substr(6));
  }
  return 0;
}

struct ProcStat {
  char state = '?';
  double startSeconds = 0;  // CLOCK_REALTIME; 0 if unknown
};

ProcStat procStat(int64_t pid) {
  ProcStat p;
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  std::getline(in, stat);
  const size_t paren = stat.rfind(')');
  if (paren == std::string::npos || paren + 2 >= stat.size()) return p;
  std::istringstream fields(stat.substr(paren + 2));
  std::string field;
  // Field 3 (state) is the first after the name; starttime (in clock ticks since boot) is 22.
  for (int i = 3; i <= 22 && fields >> field; ++i) {
    if (i == 3) p.state = field[0];
    if (i == 22) {
      p.startSeconds = static_cast<double>(bootTimeSeconds()) +
                       std::stod(field) / static_cast<double>(sysconf(_SC_CLK_TCK));
    }
  }
  return p;
}

// Nobody listens on `socket`: it is stale if its process is gone, or if the process now holding
// that pid started after the socket was made (a reused pid). Stale sockets are removed.
Outcome refusedOutcome(const Target& t, std::string* detail) {
  struct stat st = {};
  if (::lstat(t.socket.c_str(), &st) != 0) {
    *detail = "exited";
    return Outcome::Gone;
  }
  const ProcStat proc = procStat(t.pid);
  const bool alive = (::kill(static_cast<pid_t>(t.pid), 0) == 0 || errno == EPERM) &&
                     proc.state != 'Z' && proc.state != 'X';
  const double made = static_cast<double>(st.st_mtim.tv_sec) + st.st_mtim.tv_nsec / 1e9;
  if (!alive || (proc.startSeconds > 0 && proc.startSeconds > made + 1.0)) {
    ::unlink(t.socket.c_str());
    *detail = "a stale control socket (its process is gone): removed";
    return Outcome::Stale;
  }
  *detail = "its control socket does not accept connections (did it exec another program?)";
  return Outcome::NotListening;
}

struct Connection {
  size_t index = 0;
  int fd = -1;
  std::string out;
  size_t written = 0;
  std::string in;
  Clock::time_point retryAt{};
  // A reply with bytes=N (snapshot): the N bytes after its line, as they come.
  int64_t expected = -1;
  size_t received = 0;
  std::string payload;
};

// Connects without blocking. Returns false when finished (result filled in) or to retry later.
bool connectTo(const Target& t, Connection& c, Exchange& result, bool* retry) {
  *retry = false;
  sockaddr_un addr = {};
  addr.sun_family = AF_UNIX;
  const std::string path = t.socket.string();
  if (path.size() > kMaxSocketPath) {
    result.outcome = Outcome::BadReply;
    result.detail = "socket path too long: " + path;
    return false;
  }
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  c.fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (c.fd < 0) {
    *retry = errno == EMFILE || errno == ENFILE;
    result.detail = std::string("cannot create a socket: ") + std::strerror(errno);
    return false;
  }
  if (::connect(c.fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0 ||
      errno == EINPROGRESS) {
    return true;
  }
  const int err = errno;
  ::close(c.fd);
  c.fd = -1;
  switch (err) {
    case EAGAIN:  // the listen queue is full
      *retry = true;
      return false;
    case ENOENT:
      result.outcome = Outcome::Gone;
      result.detail = "exited";
      return false;
    case ECONNREFUSED:
      result.outcome = refusedOutcome(t, &result.detail);
      return false;
    case EACCES:
    case EPERM:
      result.outcome = Outcome::PermissionDenied;
      result.detail = "permission denied on " + path;
      return false;
    default:
      result.outcome = Outcome::NotListening;
      result.detail = "cannot connect to " + path + ": " + std::strerror(err);
      return false;
  }
}

void finishReply(Connection& c, Exchange& result) {
  const size_t eol = c.in.find('\n');
  const std::string_view line = std::string_view(c.in).substr(0, eol);
  if (c.in.empty()) {
    result.outcome = Outcome::NotAnswering;
    result.detail = "closed the connection without a reply";
    return;
  }
  if (auto reply = parseReply(line); reply && eol != std::string::npos) {
    result.outcome = Outcome::Answered;
    result.reply = std::move(*reply);
    if (c.expected >= 0 && c.received < static_cast<size_t>(c.expected)) {
      result.outcome = Outcome::NotAnswering;
      result.detail = "sent " + std::to_string(c.received) + " of the " +
                      std::to_string(c.expected) + " bytes it announced";
    } else if (c.expected >= 0) {
      result.payload = std::move(c.payload);
    } else if (!result.reply.ok && result.reply.text("message") == kExitingMessage) {
      result.outcome = Outcome::Gone;  // refused as it exits: gone by the next poll
      result.detail = "exited";
    }
    return;
  }
  result.outcome = Outcome::BadReply;
  result.detail = "not a bubblescope agent (it answered something else)";
}

// The reply line is in: whether bytes follow it (an ok reply with bytes=N, when the request
// expects them), and those already read past the line. False when the reply is complete.
bool expectPayload(Connection& c, size_t eol, Exchange& result) {
  const auto reply = parseReply(std::string_view(c.in).substr(0, eol));
  if (!reply || !reply->ok || reply->find("bytes") == nullptr) return false;
  const int64_t bytes = reply->integer("bytes", -1);
  if (bytes < 0 || static_cast<uint64_t>(bytes) > kMaxSnapshotBytes) {
    result.outcome = Outcome::BadReply;
    result.detail = "announced " + reply->text("bytes") + " bytes, more than a snapshot may be";
    return false;
  }
  c.expected = bytes;
  c.payload.resize(static_cast<size_t>(bytes));
  const size_t early = std::min(c.in.size() - (eol + 1), static_cast<size_t>(bytes));
  std::memcpy(c.payload.data(), c.in.data() + eol + 1, early);
  c.received = early;
  c.in.resize(eol + 1);
  return c.received < static_cast<size_t>(bytes);
}

std::vector<Target> socketsIn(const fs::path& dir) {
  std::vector<Target> found;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const int64_t pid = pidOfSocketFile(entry.path().filename().string());
    if (pid > 0) found.push_back({pid, entry.path()});
  }
  return found;
}

}  // namespace

const char* outcomeWords(Outcome outcome) {
  switch (outcome) {
    case Outcome::Answered:
      return "answered";
    case Outcome::Gone:
      return "exited";
    case Outcome::Stale:
      return "stale socket";
    case Outcome::NotListening:
      return "not listening";
    case Outcome::PermissionDenied:
      return "permission denied";
    case Outcome::NotAnswering:
      return "not answering";
    case Outcome::BadReply:
      return "not a bubblescope agent";
  }
  return "?";
}

// exchangeAll, and with `payloads` the bytes that follow a reply announcing them.
std::vector<Exchange> exchange(const std::vector<Target>& targets,
                               const std::vector<std::string>& requests,
                               std::chrono::milliseconds timeout, bool payloads) {
  std::vector<Exchange> results(targets.size());
  const Clock::time_point deadline = Clock::now() + timeout;
  std::vector<Connection> open;
  std::vector<Connection> waiting;  // listen queue full: tried again shortly
  size_t next = 0;
  auto requestOf = [&](size_t i) { return requests.size() == 1 ? requests[0] : requests[i]; };

  while (next < targets.size() || !open.empty() || !waiting.empty()) {
    const Clock::time_point now = Clock::now();
    if (now >= deadline) break;
    // Start connections (new ones, and those whose retry is due) up to the limit.
    auto start = [&](Connection c) {
      bool retry = false;
      if (connectTo(targets[c.index], c, results[c.index], &retry)) {
        c.out = requestOf(c.index);
        open.push_back(std::move(c));
      } else if (retry) {
        c.retryAt = now + kBacklogRetry;
        waiting.push_back(std::move(c));
      }
    };
    for (size_t w = 0; w < waiting.size() && open.size() < kMaxOpen;) {
      if (waiting[w].retryAt > now) {
        ++w;
        continue;
      }
      Connection c = std::move(waiting[w]);
      waiting.erase(waiting.begin() + static_cast<std::ptrdiff_t>(w));
      start(std::move(c));
    }
    while (next < targets.size() && open.size() < kMaxOpen) {
      Connection c;
      c.index = next++;
      start(std::move(c));
    }
    if (open.empty()) {
      if (!waiting.empty()) ::usleep(1000);
      continue;
    }
    std::vector<pollfd> fds(open.size());
    for (size_t i = 0; i < open.size(); ++i) {
      const bool sending = open[i].written < open[i].out.size();
      fds[i] = {open[i].fd, static_cast<short>(sending ? POLLOUT : POLLIN), 0};
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
    const int waitMs = waiting.empty() ? static_cast<int>(left.count()) + 1 : 2;
    if (::poll(fds.data(), fds.size(), waitMs) < 0 && errno != EINTR) break;
    std::vector<Connection> still;
    for (size_t i = 0; i < open.size(); ++i) {
      Connection& c = open[i];
      Exchange& result = results[c.index];
      bool done = false;
      if ((fds[i].revents & (POLLOUT | POLLERR | POLLHUP)) != 0 && c.written < c.out.size()) {
        const ssize_t sent = ::send(c.fd, c.out.data() + c.written, c.out.size() - c.written,
                                    MSG_NOSIGNAL | MSG_DONTWAIT);
        if (sent >= 0) {
          c.written += static_cast<size_t>(sent);
        } else if (errno != EAGAIN && errno != EINTR) {
          // The server may have refused us and closed: its reply is still there to read.
          c.written = c.out.size();
        }
      } else if ((fds[i].revents & (POLLIN | POLLERR | POLLHUP)) != 0 && c.expected >= 0) {
        // The payload, straight into its place.
        const ssize_t got = ::recv(c.fd, c.payload.data() + c.received,
                                   static_cast<size_t>(c.expected) - c.received, MSG_DONTWAIT);
        if (got > 0) {
          c.received += static_cast<size_t>(got);
          done = c.received == static_cast<size_t>(c.expected);
        } else if (got == 0 || (errno != EAGAIN && errno != EINTR)) {
          done = true;
        }
        if (done) finishReply(c, result);
      } else if ((fds[i].revents & (POLLIN | POLLERR | POLLHUP)) != 0) {
        char buf[65536];
        const ssize_t got = ::recv(c.fd, buf, sizeof buf, MSG_DONTWAIT);
        if (got > 0) {
          c.in.append(buf, static_cast<size_t>(got));
          const size_t eol = c.in.find('\n');
          done = eol != std::string::npos || c.in.size() > kMaxReplyBytes;
          if (payloads && eol != std::string::npos && expectPayload(c, eol, result)) done = false;
        } else if (got == 0 || (errno != EAGAIN && errno != EINTR)) {
          done = true;
        }
        if (done && result.outcome != Outcome::BadReply) finishReply(c, result);
      }
      if (done) {
        ::close(c.fd);
      } else {
        still.push_back(std::move(c));
      }
    }
    open = std::move(still);
  }
  for (Connection& c : open) {
    results[c.index].outcome = Outcome::NotAnswering;
    results[c.index].detail = "did not answer within " + std::to_string(timeout.count()) + " ms";
    if (c.expected >= 0) {
      results[c.index].detail = "sent " + std::to_string(c.received) + " of the " +
                                std::to_string(c.expected) + " bytes it announced within " +
                                std::to_string(timeout.count()) + " ms";
    }
    ::close(c.fd);
  }
  for (Connection& c : waiting) {
    results[c.index].outcome = Outcome::NotAnswering;
    results[c.index].detail = "did not accept a connection in time";
  }
  for (size_t i = next; i < targets.size(); ++i) {
    results[i].outcome = Outcome::NotAnswering;
    results[i].detail = "not reached in time";
  }
  return results;
}

std::vector<Exchange> exchangeAll(const std::vector<Target>& targets,
                                  const std::vector<std::string>& requests,
                                  std::chrono::milliseconds timeout) {
  return exchange(targets, requests, timeout, false);
}

std::vector<Exchange> watchAll(const std::vector<Target>& targets, int64_t keepNs,
                               std::chrono::milliseconds timeout) {
  Command watch{Command::Verb::Watch};
  watch.keepNs = keepNs;
  return exchange(targets, {formatCommand(watch)}, timeout, false);
}

std::vector<Exchange> fetchSnapshots(const std::vector<Target>& targets,
                                     std::chrono::milliseconds timeout) {
  return exchange(targets, {formatCommand(Command{Command::Verb::Snapshot})}, timeout, true);
}

std::optional<std::string> fetchSnapshot(const Target& target, std::chrono::milliseconds timeout,
                                         Reply* reply, std::string* error) {
  Exchange e = std::move(fetchSnapshots({target}, timeout)[0]);
  if (reply != nullptr) *reply = e.reply;
  if (e.outcome == Outcome::Answered && e.reply.ok) return std::move(e.payload);
  if (error != nullptr) {
    *error = e.outcome != Outcome::Answered ? std::string(outcomeWords(e.outcome)) + ": " + e.detail
                                            : e.reply.text("message");
  }
  return std::nullopt;
}

Discovery discoverAgents(const DirEnvironment& env, uid_t uid) {
  Discovery d;
  std::map<int64_t, fs::path> byPid;
  for (const fs::path& dir : clientRuntimeDirs(env, uid, ::geteuid())) {
    std::string why;
    const DirState state = inspectRuntimeDir(dir, uid, &why);
    if (state == DirState::Missing) continue;
    if (state == DirState::Unsafe) {
      d.problems.push_back(dir.string() + " " + why + ": not using it");
      continue;
    }
    d.searched.push_back(dir);
    for (const Target& t : socketsIn(dir)) byPid.emplace(t.pid, t.socket);
  }
  for (const auto& [pid, socket] : byPid) d.targets.push_back({pid, socket});
  return d;
}

std::optional<Target> findAgent(int64_t pid, const DirEnvironment& env, uid_t uid,
                                std::vector<std::string>* problems) {
  for (const fs::path& dir : clientRuntimeDirs(env, uid, ::geteuid())) {
    std::string why;
    const DirState state = inspectRuntimeDir(dir, uid, &why);
    if (state == DirState::Missing) continue;
    if (state == DirState::Unsafe) {
      problems->push_back(dir.string() + " " + why + ": not using it");
      continue;
    }
    const fs::path socket = dir / socketFileName(pid);
    struct stat st = {};
    if (::lstat(socket.c_str(), &st) == 0 && S_ISSOCK(st.st_mode)) return Target{pid, socket};
  }
  return std::nullopt;
}

ProcessFacts processFacts(int64_t pid) {
  ProcessFacts f;
  if (pid <= 0 || pid > 0x3fffffff) return f;
  f.exists = ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
  const std::string proc = "/proc/" + std::to_string(pid);
  std::ifstream status(proc + "/status");
  f.visible = status.good();
  if (!f.exists && !f.visible) return f;
  f.exists = true;
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("Name:", 0) == 0) {
      f.name = line.substr(line.find_first_not_of(" \t", 5));
    } else if (line.rfind("Uid:", 0) == 0) {
      std::istringstream ids(line.substr(4));
      unsigned real = 0, effective = 0;
      ids >> real >> effective;
      f.uid = effective;
    }
  }
  std::ifstream maps(proc + "/maps");
  for (std::string line; std::getline(maps, line);) {
    if (line.find("libbubblescope-agent.so") != std::string::npos) {
      f.agentLoaded = true;
      break;
    }
  }
  return f;
}

}  // namespace bubblescope::control
