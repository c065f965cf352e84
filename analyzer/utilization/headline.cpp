#include "analyzer/utilization/headline.h"

#include "analyzer/result/printed.h"
#include "analyzer/utilization/copy_traffic.h"

namespace bubblescope::analysis {
namespace {

// A direction with less alone time would read "0.0 ms": left out of the sentence, as gaps under
// kLeastListedGap are left out of the list.
constexpr TimeNs kLeastListedCopy = 100'000;

std::string ms(TimeNs t) {
  return printed("%.1f", static_cast<double>(t) / 1e6);
}

std::string percent(double part, double whole) {
  return printed("%.1f%%", whole > 0 ? 100.0 * part / whole : 0.0);
}

std::string directionPhrase(const CopyTraffic& c) {
  const bool set = c.direction == std::string(kMemsetDirection);
  const std::string count =
      " in " + std::to_string(c.count) +
      (set ? (c.count == 1 ? " set" : " sets") : (c.count == 1 ? " copy" : " copies"));
  // Kineto leaves "bytes" out of some events: no byte figure then, rather than "0 B".
  const std::string bytes =
      c.bytes == 0 ? "" : (set ? " setting " : " moving ") + printedBytes(c.bytes);
  if (set) return ms(c.alone) + " ms memset" + bytes + count;
  const std::string what = c.direction == std::string("unknown") ? "copies of no recorded direction"
                           : c.direction == std::string("array") ? "copies to or from CUDA arrays"
                                                                 : c.direction;
  return ms(c.alone) + " ms " + what + bytes + count;
}

}  // namespace

bool copiesDominate(const UtilizationSplit& total) {
  const TimeNs busy = total.span - total.idle;
  return total.otherBusy > 0 && total.otherBusy * 2 > busy;
}

bool mostMembersUntraced(const CollectiveCoverage& c) {
  return c.partial > 0 && c.traced * 2 < c.members;
}

std::string copiesSentence(const UtilizationSplit& total, const std::vector<CopyTraffic>& copies,
                           int ranks) {
  const TimeNs busy = total.span - total.idle;
  std::string s =
      "copies took " + percent(static_cast<double>(total.otherBusy), static_cast<double>(busy)) +
      " of the device's busy time (" + ms(total.otherBusy) + " of " + ms(busy) + " ms busy" +
      (ranks > 1 ? " summed over " + std::to_string(ranks) + " ranks" : "") + "; compute " +
      ms(total.compute) + " ms)";
  std::string parts;
  for (const CopyTraffic& c : copies) {
    if (c.alone < kLeastListedCopy) continue;
    parts += (parts.empty() ? ": " : ", ") + directionPhrase(c);
  }
  return s + parts;
}

std::string membersSentence(const CollectiveCoverage& c, const UtilizationSplit& total) {
  // "in all 1 collective" would read oddly: one collective is "the one".
  const std::string in = c.collectives == 1 ? "the one"
                         : c.partial == c.collectives
                             ? "all " + std::to_string(c.collectives)
                             : std::to_string(c.partial) + " of " + std::to_string(c.collectives);
  return "most members of the NCCL collectives are not traced: " +
         std::string(c.alike ? "" : "as few as ") + tracedMembersText(c.least) + " in " + in +
         (c.collectives == 1 ? " collective (" : " collectives (") +
         percent(static_cast<double>(c.traced), static_cast<double>(c.members)) +
         " of their members); the wait figures (" + ms(total.commWait) +
         " ms) come from that minority, a lower bound on the job's wait";
}

std::vector<std::string> utilizationHeadline(const UtilizationResult& u) {
  std::vector<std::string> out;
  if (copiesDominate(u.total)) {
    out.push_back(copiesSentence(u.total, u.copies, static_cast<int>(u.ranks.size())));
  }
  if (mostMembersUntraced(u.collectives)) out.push_back(membersSentence(u.collectives, u.total));
  return out;
}

}  // namespace bubblescope::analysis
