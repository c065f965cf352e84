#include "tests/tracegen/replay_plan.h"

#include <array>
#include <sstream>
#include <stdexcept>

namespace bubblescope::tracegen {
namespace {

constexpr std::string_view kHeader = "bubblescope-replay-plan 2";  // 2: device memory
constexpr std::array<std::string_view, 12> kVerbs = {
    "push",      "pop",        "launch", "send",           "recv",   "group_start",
    "group_end", "all_reduce", "sync",   "autograd_launch", "malloc", "free"};

[[noreturn]] void bad(int line, const std::string& what) {
  throw std::runtime_error("replay plan, line " + std::to_string(line) + ": " + what);
}

ReplayVerb verbOf(const std::string& word, int line) {
  for (size_t i = 0; i < kVerbs.size(); ++i) {
    if (kVerbs[i] == word) return static_cast<ReplayVerb>(i);
  }
  bad(line, "unknown action '" + word + "'");
}

}  // namespace

std::string_view verbName(ReplayVerb verb) {
  return kVerbs[static_cast<size_t>(verb)];
}

// Header, "rank R of P device D memory M", one "comm NAME SIZE RANK" per communicator, then one action per
// line: VERB AT COMM PEER COUNT STREAM UNTIL KERNEL_START KERNEL_END KERNEL_STREAM TEXT, with
// KERNEL_STREAM -1 for an action that launches nothing; TEXT is the rest of the line.
std::string formatPlan(const ReplayPlan& plan) {
  std::ostringstream out;
  out << kHeader << "\nrank " << plan.rank << " of " << plan.worldSize << " device " << plan.device
      << " memory " << plan.deviceMemory << "\n";
  for (const ReplayComm& c : plan.comms)
    out << "comm " << c.name << " " << c.size << " " << c.rank << "\n";
  for (const ReplayAction& a : plan.actions) {
    out << verbName(a.verb) << " " << a.at << " " << a.comm << " " << a.peer << " " << a.count
        << " " << a.stream << " " << a.until << " ";
    if (a.kernel) {
      out << a.kernel->start << " " << a.kernel->end << " " << a.kernel->stream;
    } else {
      out << "0 0 -1";
    }
    out << " " << a.text << "\n";
  }
  return out.str();
}

ReplayPlan parsePlan(std::string_view text) {
  std::istringstream in{std::string(text)};
  std::string line;
  int n = 0;
  if (!std::getline(in, line) || line != kHeader) bad(1, "not a replay plan");
  ReplayPlan plan;
  ++n;
  while (std::getline(in, line)) {
    ++n;
    std::istringstream fields(line);
    std::string word;
    fields >> word;
    if (word == "rank") {
      std::string of, device, memory;
      if (!(fields >> plan.rank >> of >> plan.worldSize >> device >> plan.device >> memory >>
            plan.deviceMemory)) {
        bad(n, "bad rank line");
      }
      continue;
    }
    if (word == "comm") {
      ReplayComm c;
      if (!(fields >> c.name >> c.size >> c.rank)) bad(n, "bad communicator");
      plan.comms.push_back(c);
      continue;
    }
    ReplayAction a;
    a.verb = verbOf(word, n);
    ReplayKernel k;
    int64_t kernelStream = -1;
    if (!(fields >> a.at >> a.comm >> a.peer >> a.count >> a.stream >> a.until >> k.start >>
          k.end >> kernelStream)) {
      bad(n, "expected 10 numbers after the action");
    }
    if (kernelStream >= 0) {
      k.stream = static_cast<uint32_t>(kernelStream);
      a.kernel = k;
    }
    if (fields.peek() == ' ') fields.get();
    std::getline(fields, a.text);
    if (a.comm >= static_cast<int>(plan.comms.size()))
      bad(n, "no communicator " + std::to_string(a.comm));
    plan.actions.push_back(std::move(a));
  }
  return plan;
}

}  // namespace bubblescope::tracegen
