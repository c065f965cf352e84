#pragma once
// One replica's analysis (PipelineResult) as bytes and back: a process that analysed a replica
// hands its result to the one that writes the reports (analyze under MPI). Every field travels;
// a field added to the result without being added here fails the size checks in the .cpp. Pure:
// no I/O. A reader that runs past the end throws std::runtime_error.
#include "analyzer/result/result.h"
#include "traces/model/byte_codec.h"

namespace bubblescope::analysis {

void encodePipelineResult(const PipelineResult& r, traces::ByteWriter& out);
PipelineResult decodePipelineResult(traces::ByteReader& in);

}  // namespace bubblescope::analysis
