#include "analyzer/idle/gap_label.h"

#include <string_view>

#include "analyzer/idle/blame.h"

namespace bubblescope::analysis {
namespace {

// What a class's piece of a gap is, when no dependency walk explains it: how the fill levels
// (classify.h) found it. Appended to `out`: a label is written for most gaps of a run, so it
// builds one string, not a string per phrase.
void appendReason(std::string& out, IdleClass c, const std::string& hostRange) {
  switch (c) {
    case IdleClass::Warmup:
      out += "for the pipeline to fill";
      return;
    case IdleClass::Drain:
      out += "while the pipeline drains, as the schedule itself does";
      return;
    case IdleClass::ScheduleBubble:
      out += "in a gap the schedule itself leaves";
      return;
    case IdleClass::Imbalance:
      out += "because the stages' mean op costs differ (balanced stages would not wait)";
      return;
    case IdleClass::Jitter:
      out += "because ops ran longer than their stage's mean";
      return;
    case IdleClass::CommStall:
      out += "beyond what the op costs explain, in late transfers";
      return;
    case IdleClass::HostStall:
      if (hostRange.empty()) {
        out += "beyond what the op costs explain, while the host was busy";
      } else {
        out += "beyond what the op costs explain, while the host was in '";
        out += hostRange;
        out += '\'';
      }
      return;
    case IdleClass::DpSync:
      out += "at the DP sync, waiting for a replica that arrived later";
      return;
    case IdleClass::OtherStall:
      out += "beyond what the op costs explain, with nothing in the trace to say why";
      return;
  }
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
  std::string_view walk = b.text;
  if (walk.size() > waited.size() && walk.starts_with(waited) && walk[waited.size()] == ' ') {
    walk.remove_prefix(waited.size() + 1);
  }
  const TimeNs walked = gap.byClass[static_cast<int>(b.cause)];
  std::string text;
  text.reserve(waited.size() + 120 + hostRange.size() + (walked > 0 ? walk.size() + 24 : 0));
  text += waited;
  text += ", ";
  text += gapMs(gap.byClass[static_cast<int>(largest)]);
  text += " of it ";
  appendReason(text, largest, hostRange);
  text += " (";
  text += idleClassName(largest);
  text += ')';
  if (walked > 0) {
    text += "; of the rest, ";
    text += gapMs(walked);
    text += ' ';
    text += walk;
    b.text = std::move(text);
    return;
  }
  b = Blame{};
  b.cause = largest;
  b.text = std::move(text);
}

}  // namespace bubblescope::analysis
