#pragma once
// Writer side of open ranges: every cycle while recording, the ranges each thread is inside now
// (push/pop stacks, copied while the threads run) and the start/end ranges still waiting for their
// end become the file's open_ranges snapshot, rewritten when it changed; meta.alive_ns says when
// the process was last seen. A rank that hangs or is killed leaves both in its last batch.
#include <vector>

#include "agent/core/record_sink.h"
#include "traces/sqlite/records.h"

namespace bubblescope::agent {

// `startEnd`: the start/end ranges begun and not ended (the writer's pending starts). `closing`:
// the file's last cycle (capture already turned off): the last window's stacks are still copied.
void writeOpenRanges(RecordSink& sink, std::vector<traces::OpenRangeRecord> startEnd, bool closing);
// A new file: nothing written to it yet.
void forgetOpenRanges();

}  // namespace bubblescope::agent
