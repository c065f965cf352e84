// libFuzzer target: any bytes as a line of the control socket's protocol (a request to the agent,
// or a reply to `bubblescope attach/ps/hang`). Parsing must never crash, and what parses must
// survive a round trip: format(parse(x)) parses to the same thing, and escaping is undone by
// unescaping. A reply that reads as a `hang` snapshot reads the same after being written again.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "agent/control/live_snapshot.h"
#include "agent/control/protocol.h"

namespace {

bool same(const bubblescope::control::Command& a, const bubblescope::control::Command& b) {
  return a.verb == b.verb && a.steps == b.steps && a.fromStep == b.fromStep &&
         a.durationNs == b.durationNs && a.keepNs == b.keepNs;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace bubblescope::control;
  const std::string_view line(reinterpret_cast<const char*>(data), size);

  Command command;
  std::string error;
  if (parseCommand(line, &command, &error)) {
    std::string again = formatCommand(command);
    if (again.empty() || again.back() != '\n') __builtin_trap();
    again.pop_back();
    Command reparsed;
    if (!parseCommand(again, &reparsed, &error) || !same(command, reparsed)) __builtin_trap();
  } else if (error.empty() || error.find('\n') != std::string::npos) {
    __builtin_trap();  // a refusal is one line with a reason
  }

  if (const auto reply = parseReply(line)) {
    std::string again = formatReply(*reply);
    again.pop_back();
    const auto reparsed = parseReply(again);
    if (!reparsed || reparsed->ok != reply->ok || reparsed->fields != reply->fields) {
      __builtin_trap();
    }
    (void)reply->integer("pid", -1);

    LiveSnapshot snapshot;
    if (snapshotFromReply(*reply, &snapshot, &error)) {
      Reply written;
      addSnapshot(snapshot, written);  // a 1 KB input never needs cutting
      LiveSnapshot back;
      if (!snapshotFromReply(written, &back, &error) ||
          back.calls.size() != snapshot.calls.size() ||
          back.ranges.size() != snapshot.ranges.size() ||
          back.counts.size() != snapshot.counts.size() || back.env != snapshot.env) {
        __builtin_trap();
      }
    } else if (error.empty() || error.find('\n') != std::string::npos) {
      __builtin_trap();
    }
  }

  if (unescapeValue(escapeValue(line)) != line) __builtin_trap();
  (void)unescapeValue(line);
  return 0;
}
