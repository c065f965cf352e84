#pragma once
// Sequence-length imbalance (analysis.md §7): when a microbatch holds long sequences, every stage
// of its replica takes longer on it. Per-microbatch costs that move together across stages are
// that, not a slow stage (whose costs are normalised away here) and not jitter of one op (which
// no other stage shares). Pure: reads the replicas' ops, writes findings.
#include <optional>
#include <vector>

#include "analyzer/replicas/job_whatif.h"
#include "analyzer/result/job_result.h"

namespace bubblescope::analysis {

// The per-microbatch factors must explain this share of the per-op variation around the stage
// means (independent jitter on p stages explains about 1/p of it)...
inline constexpr double kSequenceCorrelation = 0.6;
// ... and vary by at least this much (relative standard deviation), to be reported.
inline constexpr double kSequenceSpread = 0.05;

// One replica's finding, if its costs show one (each replica on its own: analyze under MPI finds
// them where the replicas are analysed).
std::optional<SequenceImbalance> sequenceImbalanceOf(const ReplicaSteps& replica);

}  // namespace bubblescope::analysis
