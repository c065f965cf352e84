#pragma once
// The control protocol between `bubblescope attach/detach/ps` and the agent in each process:
// one request line per connection, one reply line back (docs/agent.md, "The control protocol").
// Pure text in and out, shared by the agent's server, the command-line client and the NVTX
// control marks (a mark's message is a request without its LF): one grammar, one parser.
//
//   request := verb *(SP key=value) LF           at most kMaxRequestBytes
//   start [steps=N | duration=SECONDS] [from=S]  (neither: a window open until stop)
//   stop | status
//   hang                                         where each thread waits (live_snapshot.h)
//   watch [keep=SECONDS]                         a memory window keeping the last SECONDS
//                                                (default 5), started or renewed
//   snapshot                                     the memory window's trace (renews it too)
//   reply   := ("ok" | "err") *(SP key=value) LF
//   snapshot's ok reply has bytes=N, and N raw bytes follow its LF on the same connection: an
//   SQLite database image of a rank trace (docs/agent.md, "Watch: the memory window").
//
// Values are percent-escaped (space, '%', '=', control and non-ASCII bytes become %XX).
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace bubblescope::control {

inline constexpr int kProtocolVersion = 1;
inline constexpr size_t kMaxRequestBytes = 512;
inline constexpr size_t kMaxReplyBytes = 64 * 1024;

// A parsed request.
struct Command {
  enum class Verb { Status, Start, Stop, Hang, Watch, Snapshot } verb = Verb::Status;
  int64_t steps = 0;       // start: capture this many steps (from a step boundary)
  int64_t fromStep = -1;   // start with steps or duration: the step to begin at (every rank alike)
  int64_t durationNs = 0;  // start: record this long (neither steps nor duration: until stop)
  int64_t keepNs = 0;      // watch: how much the memory window keeps (0: kDefaultKeepNs)
};

// What a memory window keeps when watch does not say, and the most it may be asked to keep.
inline constexpr int64_t kDefaultKeepNs = 5'000'000'000;
inline constexpr int64_t kMaxKeepNs = 600'000'000'000;
// The largest snapshot image an agent sends (a bigger one is refused, with its size).
inline constexpr uint64_t kMaxSnapshotBytes = uint64_t{256} << 20;
// An agent's refusal once its process has begun to exit (its socket already gone, a request
// taken just before): clients read it as the process gone, not as a window that ended.
inline constexpr std::string_view kExitingMessage = "exiting: the process is ending";

// False (with a one-line reason) for anything that is not a valid request.
bool parseCommand(std::string_view line, Command* out, std::string* error);
// The request line for a command (with its LF).
std::string formatCommand(const Command& command);
// Seconds as the protocol writes them: exact to the nanosecond, no trailing zeros ("1.5").
std::string formatSeconds(int64_t ns);

// A reply: ok or err, and its fields.
struct Reply {
  bool ok = false;
  std::map<std::string, std::string> fields;

  const std::string* find(const std::string& key) const;
  std::string text(const std::string& key) const;                  // "" when missing
  int64_t integer(const std::string& key, int64_t missing) const;  // `missing` if absent or bad
};

std::string formatReply(const Reply& reply);  // with its LF
// Nothing (not a reply of this protocol) for text that is not "ok ..." or "err ...".
std::optional<Reply> parseReply(std::string_view line);

std::string escapeValue(std::string_view value);
std::string unescapeValue(std::string_view value);

}  // namespace bubblescope::control
