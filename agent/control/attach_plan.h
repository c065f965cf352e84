#pragma once
// How `bubblescope attach` aligns capture across ranks: from every process's step counter and
// step time (its status), which step every rank of a run starts at, and what a rank without
// step markers, or far behind the others, does instead. Pure: statuses in, commands out.
#include <cstdint>
#include <string>
#include <vector>

#include "agent/control/protocol.h"

namespace bubblescope::control {

// A rank more than this many steps behind the leader of its run is not waited for.
inline constexpr int64_t kMaxStepLag = 8;
// With no measured step time anywhere in a run, N steps become this long per step.
inline constexpr int64_t kUnknownStepNs = 1'000'000'000;

struct RankState {
  int64_t pid = 0;
  std::string runId;
  int64_t step = -1;       // the step it is in; -1: no step markers seen
  int64_t stepNs = -1;     // its mean step time; -1 unknown
  int64_t stepAgeNs = -1;  // how long ago its current step began; -1 unknown
};

struct AttachRequest {
  int64_t steps = 0;       // N steps, or
  int64_t durationNs = 0;  // a duration
  int64_t leadNs = 0;      // time the start requests need to reach every process
};

struct PlannedStart {
  enum class Kind {
    Steps,           // steps S..S+N-1, like every rank of its run
    DurationAtStep,  // the duration from step S, like every rank of its run
    DurationNow,     // the duration from now: no step markers
    NoStepMarkers,   // --steps, but this rank has no step markers: a duration instead
    FarBehind,       // --steps or --duration, but this rank is far behind: from now
  };
  Kind kind = Kind::Steps;
  Command command;         // what to send
  int64_t firstStep = -1;  // S for Steps and DurationAtStep
  int64_t lag = 0;         // FarBehind: steps behind the run's leader
};

// One plan per rank, in the order given. Ranks are aligned within their run id.
std::vector<PlannedStart> planAttach(const std::vector<RankState>& ranks,
                                     const AttachRequest& request);

}  // namespace bubblescope::control
