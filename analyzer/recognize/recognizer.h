#pragma once
// Op recognition on one rank: picks the rule set that recognises the most ops in the rank's range
// names, turns ranges into ops, transfers, steps and phases, and ties GPU kernels to the op that
// launched them.
#include <vector>

#include "analyzer/recognize/recognized.h"
#include "analyzer/recognize/rule_set.h"
#include "traces/model/trace.h"

namespace bubblescope::analysis {

// `ruleSets` are tried in order (user rules first, then the built-ins); the one that recognises
// the most ops wins, the earlier on a tie. RankOps::ruleSet is empty when none recognises an op.
RankOps recognize(const traces::RankTrace& trace, const std::vector<const RuleSet*>& ruleSets);

// Recognition with one rule set, whether or not it finds ops (commonMarkers(): the steps, the
// optimizer and the device work of a trace nobody labelled).
// withKernels = false leaves GPU work unattributed (a caller that attributes it later).
RankOps recognizeWith(const traces::RankTrace& trace, const RuleSet& ruleSet,
                      bool withKernels = true);

}  // namespace bubblescope::analysis
