#pragma once
// A send or receive's model chunk and thread, narrowed to the room a comm keeps for them
// (recognized.h), and an op's chunk held to the same bound: a trace that needs more is refused with
// one sentence naming its file and rank (AnalysisInputError), never read as other chunks or
// threads.
#include <cstdint>

#include "traces/model/trace.h"

namespace bubblescope::analysis {

uint8_t commChunk(const traces::RankTrace& trace, int chunk);
// An op's chunk, held to the same bound: its comms name it, and each is a row of the schedule.
int opChunk(const traces::RankTrace& trace, int chunk);
uint16_t commThread(const traces::RankTrace& trace, traces::ThreadIndex thread);

}  // namespace bubblescope::analysis
