#pragma once
// A start request, from the control socket or an NVTX control mark, as the recorder's window:
// both sources speak the protocol's grammar (protocol.h) and mean the same by it.
#include <string>

#include "agent/control/protocol.h"
#include "agent/core/recorder.h"

namespace bubblescope::agent {

WindowRequest windowRequestFor(const control::Command& start, std::string reason);

}  // namespace bubblescope::agent
