#pragma once
// Starting the ranks of a replayed job together, as torchrun and NCCL's communicator set-up do:
// one process per rank with RANK, LOCAL_RANK and WORLD_SIZE set; each says when it is ready
// (agent loaded, communicators made), then all get one time origin a little ahead. A slow start
// on a loaded machine delays the whole job, never one rank against the others.
#include <string>
#include <vector>

#include "traces/model/time.h"

namespace bubblescope::tracegen {

// Runs `self rank PLAN READY_FD GO_FD rankArgs...` per plan and waits for them. The exit code
// of the first rank that failed (or 1 if one never got ready), else 0.
int launchRanks(const std::string& self, const std::vector<std::string>& plans,
                const std::vector<std::string>& rankArgs);

// The rank's side: tells the launcher it is ready and waits for the origin (CLOCK_REALTIME ns).
// -1 if the launcher is gone.
TimeNs readyForOrigin(int readyFd, int goFd);

}  // namespace bubblescope::tracegen
