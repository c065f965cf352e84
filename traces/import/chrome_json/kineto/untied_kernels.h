#pragma once
// NCCL kernels that no call of the trace launched (a capture window that opened mid-call, a call
// made on a thread the trace did not keep): the call each stands for, from the collective args
// newer Kineto copies onto the kernel, or, for a send/receive kernel with none, from the calls of
// its stream's neighbours where they leave no doubt. Pure: the importer ties, this only types.
#include <optional>
#include <vector>

#include "traces/import/chrome_json/kineto/kineto_comms.h"

namespace bubblescope::traces::import {

// A call as the importer builds it: what it says, and when and where it was made.
struct ImportCall : NcclCallFields {
  TimeNs start = 0, end = 0;
  ThreadIndex thread = 0;
};

struct Launch {  // a kernel's launch call, when the trace holds it
  ThreadIndex thread = 0;
  TimeNs start = 0, end = 0;
};

// One NCCL kernel once the trace's calls are tied to it.
struct KernelTie {
  const NcclKernelRef* kernel = nullptr;
  const ImportCall* call = nullptr;  // its call (a group's: the first); nullptr: not tied
  bool group = false;                // tied to a coalesced group's several calls
  std::optional<Launch> launch;
};

// For each kernel that is not tied: the call it stands for, or nullopt where neither its args
// nor its neighbours say what it was (a send or receive must name its peer). Such a call is made
// on its launch's thread, spanning the launch; without a launch, posted no later than its kernel
// started nor than the next call on its stream (NCCL runs a stream's kernels in the order they
// were posted), on the thread of its stream's nearest call. `rank`: the trace's global rank (-1
// unknown), which places a peer within its group.
std::vector<std::optional<ImportCall>> callsOfUntiedKernels(const std::vector<KernelTie>& kernels,
                                                            int rank);

}  // namespace bubblescope::traces::import
