#pragma once
// TP groups as one stage (analysis.md §7): the TP ranks of one (replica, stage) run the same ops,
// so the stage's op spans from its first member's start to its last member's end. Folds the
// members into the stage's representative before the pipeline is built, and reports how far
// apart the members finished and which one, if any, is late in most ops.
#include <vector>

#include "analyzer/pipeline/topology.h"
#include "analyzer/recognize/recognized.h"
#include "analyzer/result/job_result.h"

namespace bubblescope::analysis {

// A member is named slow when it ends last in at least this share of the group's ops (with two
// members that is well above chance, and with eight far above it).
inline constexpr double kSlowMemberShare = 0.6;

// Rewrites each group representative's ops in `ops` to the group's spans. Members whose op
// sequence differs from the representative's are left out of the fold (and said in `warnings`).
std::vector<TpGroupResult> foldTpGroups(const Topology& topo, const traces::Run& run,
                                        std::vector<RankOps>& ops,
                                        std::vector<std::string>& warnings);

// Op-level timelines at scale (NDTimeline: no device kernels to match across ranks) fold each TP
// group as soon as its members are recognised, so that a 1024-rank job never holds every rank's
// ops at once. The groups, from metadata alone: ranks sharing BUBBLESCOPE_DP_RANK and PP_RANK, by
// TP_RANK; empty unless every rank says all three and some group has two members.
std::vector<std::vector<size_t>> tpGroupsFromMetadata(const traces::Run& run);
// Folds `members` (recognised) into the first and releases the others' ops.
TpGroupResult foldEarly(const traces::Run& run, std::vector<RankOps>& ops,
                        const std::vector<size_t>& members, std::vector<std::string>& warnings);

}  // namespace bubblescope::analysis
