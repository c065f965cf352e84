#pragma once
// The sentences a utilization report opens with, for what its table would hide (analysis.md,
// "Jobs with no pipeline"): copies that dominate the device time, with their directions and
// bytes; waits measured among a minority of the collectives' members. Pure.
#include <string>
#include <vector>

#include "analyzer/result/utilization_result.h"

namespace bubblescope::analysis {

// Copies dominate when the time they had the device to themselves (the split's otherBusy) is
// more than half its busy time (span less idle): more than compute, NCCL and its waiting
// together. Not a share of the span, so a mostly idle device whose work is mostly copying is
// still said to be copying.
bool copiesDominate(const UtilizationSplit& total);
// Most members untraced: the run traced fewer than half of the members of the collectives it
// matched, each collective counted once.
bool mostMembersUntraced(const CollectiveCoverage& c);

// "copies took 97.7% of the device's busy time (1880.9 of 1925.7 ms busy summed over 2 ranks;
// compute 44.8 ms): 1841.6 ms HtoD moving 47.5 GiB in 450 copies, ...", each direction with at
// least 0.1 ms alone, the longest first.
std::string copiesSentence(const UtilizationSplit& total, const std::vector<CopyTraffic>& copies,
                           int ranks);
// "most members of the NCCL collectives are not traced: 2 of 128 members traced in all 8
// collectives (1.6% of their members); the wait figures (140.2 ms) come from that minority, ..."
std::string membersSentence(const CollectiveCoverage& c, const UtilizationSplit& total);

// The sentences that apply, copies first; empty when neither does.
std::vector<std::string> utilizationHeadline(const UtilizationResult& u);

}  // namespace bubblescope::analysis
