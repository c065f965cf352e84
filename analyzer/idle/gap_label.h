#pragma once
// One label per gap, and its sentence says the same (issue 26, item 3): a gap is labelled by its
// largest class, and its explanation opens with that class. The dependency walk (blame.h) explains
// one piece of a gap; where that piece is not the largest, the sentence leads with what the largest
// is and keeps the walk's explanation for the piece it covers ("stage 1 waited 11.9 ms, 11.7 ms of
// it beyond what the op costs explain, with nothing in the trace to say why (stall: other); of the
// rest, 0.15 ms in a gap the schedule itself leaves (schedule bubble)"). A walk that explains no
// piece at all is dropped: it would name a class the gap does not hold.
#include "analyzer/idle/blame_words.h"
#include "analyzer/result/result.h"

namespace bubblescope::analysis {

// The largest class of a gap; a tie goes to `preferred` (the walk's class), else to the first
// in the table's order.
IdleClass largestClass(const IdleByClass& byClass, IdleClass preferred);

// Sets gap.dominant to the gap's largest class; a walk whose class holds none of the gap is
// dropped (gap.blame and `words` then say only that class). `gapHostName`: the host range that
// covered the gap, for a host stall the walk did not find (an index into the stage's
// RankOps::hostNames; -1 when none did). The sentence is written from these (gap_sentence.h).
void labelGap(Gap& gap, BlameWords& words, int gapHostName);

}  // namespace bubblescope::analysis
