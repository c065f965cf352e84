#pragma once
// The command line's side of the control protocol (`bubblescope attach`, `detach`, `ps`): finds
// the agents of a user through their sockets, removes the sockets of processes that are gone,
// and talks to many processes at once. Linked by the CLI, which does not link the agent.
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "agent/control/protocol.h"
#include "agent/control/runtime_dir.h"

namespace bubblescope::control {

// A process with a control socket.
struct Target {
  int64_t pid = 0;
  std::filesystem::path socket;
};

enum class Outcome {
  Answered,          // a reply (ok or err) came back
  Gone,              // the socket vanished: the process exited
  Stale,             // nobody listens and the process is gone: the socket was removed
  NotListening,      // nobody listens but the process lives (it exec'd, or is stopped)
  PermissionDenied,  // the socket or its directory is not ours to open
  NotAnswering,      // connected, but no reply in time
  BadReply,          // something answered that does not speak the protocol
};

struct Exchange {
  Outcome outcome = Outcome::NotAnswering;
  Reply reply;          // when Answered
  std::string detail;   // otherwise, in words
  std::string payload;  // the bytes after an ok snapshot reply (bytes=N of them)
};

// Sends requests[i] to targets[i] (or requests[0] to all when it is the only one), all at once
// (at most 256 connections open), and collects one reply line each within `timeout`.
std::vector<Exchange> exchangeAll(const std::vector<Target>& targets,
                                  const std::vector<std::string>& requests,
                                  std::chrono::milliseconds timeout);

// `watch keep=SECONDS` (keepNs 0: the agent's default) to every target at once: starts or renews
// each one's memory window. A reply is err (with message=) where a process records to a file.
std::vector<Exchange> watchAll(const std::vector<Target>& targets, int64_t keepNs,
                               std::chrono::milliseconds timeout);

// `snapshot` to every target at once: each ok reply's payload is the SQLite image of that
// process's memory window (a rank trace: sqlite::Database::fromBytes, then traces::readRankTrace).
// The agent waits up to 1.5 s for its writer: give `timeout` kSnapshotClientTimeout or more.
inline constexpr std::chrono::milliseconds kSnapshotClientTimeout{4000};
std::vector<Exchange> fetchSnapshots(const std::vector<Target>& targets,
                                     std::chrono::milliseconds timeout);
// One target: the image and the reply's fields, or nothing with `error` in words (the agent's
// message, or what went wrong on the way).
std::optional<std::string> fetchSnapshot(const Target& target, std::chrono::milliseconds timeout,
                                         Reply* reply, std::string* error);

// Every socket in the user's runtime directories. Directories that are not safe to use are left
// out with one line each in `problems`.
struct Discovery {
  std::vector<Target> targets;  // by pid; one per pid
  std::vector<std::filesystem::path> searched;
  std::vector<std::string> problems;
};
Discovery discoverAgents(const DirEnvironment& env, uid_t uid);

// The socket of one process of user `uid`, or nothing (problems as above).
std::optional<Target> findAgent(int64_t pid, const DirEnvironment& env, uid_t uid,
                                std::vector<std::string>* problems);

// What /proc says of a process: whether it exists, its owner, whether the agent is loaded.
struct ProcessFacts {
  bool exists = false;
  bool visible = false;  // /proc/<pid> readable (hidepid may hide other users' processes)
  uid_t uid = 0;
  bool agentLoaded = false;  // libbubblescope-agent.so mapped
  std::string name;          // comm
};
ProcessFacts processFacts(int64_t pid);

const char* outcomeWords(Outcome outcome);

}  // namespace bubblescope::control
