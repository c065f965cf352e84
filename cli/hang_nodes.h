#pragma once
// `bubblescope hang --all` started by an MPI launcher with one process per node (mpirun
// -npernode 1, srun --ntasks-per-node=1): each process asks its own node's processes, as it
// would alone, and sends their answers (what --save writes) to MPI rank 0, which reads them as
// `hang FILE...` reads each node's saved file: one report, with the wait-for graph across nodes.
#include <optional>
#include <string>
#include <vector>

#include "cli/attach_session.h"
#include "cli/cmd_hang.h"
#include "cli/live_answers.h"

namespace bubblescope::cli {

// Every node's answers, by MPI rank, on rank 0 (MPI has ended there too); std::nullopt on the
// other ranks, whose part is done. A node that found no processes is said once on stderr by
// rank 0; none anywhere is a UsageError. `launcher`: what said this is an MPI job, and
// `launcherSize` how many processes it started (MPI seeing fewer is a UsageError: srun without
// --mpi=pmix starts each process as an MPI job of its own).
std::optional<std::vector<NodeAnswers>> gatherNodeAnswers(const HangOptions& o,
                                                          const std::string& launcher,
                                                          int launcherSize, Problems& problem);

}  // namespace bubblescope::cli
