#pragma once
// Which file a process writes when its own name cannot be used: the pid name when the rank's is
// taken, and a next part when the job closed the descriptors of the file it was writing. Pure: the
// writer creates the files, this names them and says what they claim.
#include <string>

#include "traces/model/trace.h"

namespace bubblescope::agent {

// The rank kept only as extra.claimed_rank: two files must not claim one rank.
traces::RankMeta withoutRank(traces::RankMeta meta);

// Part `part` (2, 3, ...) of a process's trace: "rank-3.pid-123.part-2.sqlite" after the fallback
// "rank-3.pid-123.sqlite", or "pid-123.part-2.sqlite" after "pid-123.sqlite" when there is none.
std::string partName(const std::string& fileName, const std::string& fallbackName, int part);

}  // namespace bubblescope::agent
