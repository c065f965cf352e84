#pragma once
// Writes PyTorch-profiler (Kineto) JSON for tests: a rank of a synthetic pipeline run, with its
// bubblescope-convention ranges renamed to torch.distributed.pipelining's record_function labels
// ("F mb=3" on stage 2 -> "PP:2F3"), each op launching a kernel, each transfer holding a
// record_param_comms with its peer, and the distributedInfo of the job.
#include <string>

#include "traces/model/trace.h"

namespace bubblescope::testing {

struct KinetoWriterOptions {
  int stage = 0;
  int worldSize = 1;
  TimeNs base = 0;          // baseTimeNanoseconds; 0 writes absolute epoch microseconds
  bool withKernels = true;  // a cudaLaunchKernel + kernel per op
  bool withComms = true;    // a record_param_comms (send/recv with the peer rank) per transfer
};

// The torch pipelining label of a bubblescope-convention name, or the name unchanged.
std::string pipeliningLabel(const std::string& name, int stage);

std::string kinetoJson(const traces::RankTrace& trace, const KinetoWriterOptions& options);

}  // namespace bubblescope::testing
