#pragma once
// One rank's trace as bytes and back, every field of it, so that a process that read and
// recognised some ranks of a run can hand them to the one that analyses the job (analyze under
// MPI). Pure: no I/O. The decoded trace equals the encoded one, string ids included.
#include <string>
#include <string_view>

#include "traces/model/byte_codec.h"
#include "traces/model/trace.h"

namespace bubblescope::traces {

void encodeRankTrace(const RankTrace& trace, ByteWriter& out);
// Throws std::runtime_error when the bytes end early.
RankTrace decodeRankTrace(ByteReader& in);

}  // namespace bubblescope::traces
