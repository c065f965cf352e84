#pragma once
// A gap's sentence, written from the blame walk's words (blame_words.h) when a report needs it:
// "stage 2 waited 3.1 ms for F5 on stage 1, which ran 1.6x its ideal (imbalance)". A summary's
// analysis writes only the sentences of the gaps its reports list; one that keeps every gap
// writes every one, as its step is classified.
#include <string>

#include "analyzer/idle/blame_words.h"
#include "analyzer/pipeline/pipeline_trace.h"
#include "analyzer/result/result.h"

namespace bubblescope::analysis {

// A gap or a piece of one: "3.1 ms", under a millisecond with two decimals ("0.15 ms", not
// "0.1 ms" or "0.0 ms").
std::string gapMs(TimeNs t);
// "stage 2 waited 3.1 ms": how every gap's sentence begins.
std::string waitedText(int stage, TimeNs gapIdle);

// The walk's answer as a sentence about a gap of `gapIdle` on `stage`, as the walk found it
// (before gap_label.h leads it with the gap's largest class). `pipeline`: for the host ranges'
// names.
std::string walkSentence(int stage, TimeNs gapIdle, const Blamed& walk,
                         const PipelineTrace& pipeline);

// The gap's sentence (Blame::text): the walk's, led by the gap's largest class where that is not
// the walk's (labelGap has set gap.dominant and the words).
std::string gapSentence(const Gap& gap, const BlameWords& words, const PipelineTrace& pipeline);

}  // namespace bubblescope::analysis
