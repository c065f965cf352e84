#include "analyzer/idle/gap_label.h"

namespace bubblescope::analysis {

IdleClass largestClass(const IdleByClass& byClass, IdleClass preferred) {
  IdleClass largest = preferred;
  for (int c = 0; c < kIdleClasses; ++c) {
    if (byClass[c] > byClass[static_cast<int>(largest)]) largest = idleClassAt(c);
  }
  return largest;
}

void labelGap(Gap& gap, BlameWords& words, int gapHostName) {
  const IdleClass largest = largestClass(gap.byClass, gap.blame.cause);
  gap.dominant = largest;
  if (largest != gap.blame.cause && gap.byClass[static_cast<int>(gap.blame.cause)] == 0) {
    gap.blame = Blame{};
    gap.blame.cause = largest;
    words = BlameWords{};
    words.form = BlameForm::LargestPiece;
  }
  words.gapHostName = gapHostName;
}

}  // namespace bubblescope::analysis
