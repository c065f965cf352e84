#pragma once
// What recognition found on one rank, as bytes and back: a process that recognised some ranks of
// a run hands them to the one that analyses the job (analyze under MPI). Pure: no I/O.
#include "analyzer/recognize/recognized.h"
#include "traces/model/byte_codec.h"

namespace bubblescope::analysis {

void encodeRankOps(const RankOps& ops, traces::ByteWriter& out);
// Throws std::runtime_error when the bytes end early.
RankOps decodeRankOps(traces::ByteReader& in);

}  // namespace bubblescope::analysis
