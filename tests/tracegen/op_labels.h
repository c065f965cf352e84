#pragma once
// The names the stacks give a pipeline op, shared by the writers so every stack labels a job the
// same way: torch.distributed.pipelining's record_function, and the bubblescope convention.
#include <string>

#include "tests/tracegen/pp_job.h"

namespace bubblescope::tracegen {

// "PP:{stage}{action}{mb}" as torch's schedules name an action: stage is the virtual stage (ZB-V
// rank s runs stages s and 2p - 1 - s), action F, B (the full backward), I (input gradient) or W.
std::string torchOpLabel(const JobSpec& spec, const OpId& id);

// "F mb=3", "BW mb=3"; under ZB-V with the chunk: "B mb=3 ch=1" (docs: ch omitted = 0).
std::string bubblescopeOpLabel(const JobSpec& spec, const OpId& id);

}  // namespace bubblescope::tracegen
