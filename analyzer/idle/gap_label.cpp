#include "analyzer/idle/gap_label.h"

#include "analyzer/idle/blame.h"

namespace bubblescope::analysis {
namespace {

// What a class's piece of a gap is, when no dependency walk explains it: how the fill levels
// (classify.h) found it.
std::string reasonOf(IdleClass c, const std::string& hostRange) {
  switch (c) {
    case IdleClass::Warmup:
      return "for the pipeline to fill";
    case IdleClass::Drain:
      return "while the pipeline drains, as the schedule itself does";
    case IdleClass::ScheduleBubble:
      return "in a gap the schedule itself leaves";
    case IdleClass::Imbalance:
      return "because the stages' mean op costs differ (balanced stages would not wait)";
    case IdleClass::Jitter:
      return "because ops ran longer than their stage's mean";
    case IdleClass::CommStall:
      return "beyond what the op costs explain, in late transfers";
    case IdleClass::HostStall:
      return hostRange.empty() ? "beyond what the op costs explain, while the host was busy"
                               : "beyond what the op costs explain, while the host was in '" +
                                     hostRange + "'";
    case IdleClass::DpSync:
      return "at the DP sync, waiting for a replica that arrived later";
    case IdleClass::OtherStall:
      return "beyond what the op costs explain, with nothing in the trace to say why";
  }
  return {};
}

}  // namespace

IdleClass largestClass(const IdleByClass& byClass, IdleClass preferred) {
  IdleClass largest = preferred;
  for (int c = 0; c < kIdleClasses; ++c) {
    if (byClass[c] > byClass[static_cast<int>(largest)]) largest = idleClassAt(c);
  }
  return largest;
}

void labelGap(Gap& gap, const std::string& hostRange) {
  Blame& b = gap.blame;
  const IdleClass largest = largestClass(gap.byClass, b.cause);
  gap.dominant = largest;
  if (largest == b.cause) return;
  const std::string waited = waitedText(gap.stage, gap.idle);
  const std::string walk =
      b.text.starts_with(waited + " ") ? b.text.substr(waited.size() + 1) : b.text;
  std::string text = waited + ", " + gapMs(gap.byClass[static_cast<int>(largest)]) + " of it " +
                     reasonOf(largest, hostRange) + " (" + idleClassName(largest) + ")";
  const TimeNs walked = gap.byClass[static_cast<int>(b.cause)];
  if (walked > 0) {
    text += "; of the rest, " + gapMs(walked) + " " + walk;
    b.text = std::move(text);
    return;
  }
  b = Blame{};
  b.cause = largest;
  b.text = std::move(text);
}

}  // namespace bubblescope::analysis
