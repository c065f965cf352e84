#pragma once
// The names the stacks give a pipeline op, shared by the writers so every stack labels a job the
// same way: torch.distributed.pipelining's record_function, and the bubblescope convention.
#include <string>

#include "tests/tracegen/execution.h"

namespace bubblescope::tracegen {

// "PP:{stage}{action}{mb}" as torch's schedules name an action: stage is the virtual stage (ZB-V
// rank s runs stages s and 2p - 1 - s, interleaved s and p + s), action F, B (the full backward),
// I (input gradient) or W.
std::string torchOpLabel(const JobSpec& spec, const OpId& id);

// "F mb=3", "BW mb=3"; with several chunks per stage with the chunk: "B mb=3 ch=1" (docs: ch
// omitted = 0).
std::string bubblescopeOpLabel(const JobSpec& spec, const OpId& id);

// A send or receive action on `rank`: torch's "PP:{stage}{SEND|RECV}_{F|B}{mb}" (the stage that
// sends or receives it), ours "SEND F mb=3 ch=1 to=2" / "RECV B mb=3 ch=0 from=1".
std::string torchCommLabel(const JobSpec& spec, int rank, const NcclCall& call);
std::string bubblescopeCommLabel(const JobSpec& spec, const NcclCall& call);

}  // namespace bubblescope::tracegen
