#include "agent/control/window_request.h"

#include <utility>

namespace bubblescope::agent {

WindowRequest windowRequestFor(const control::Command& start, std::string reason) {
  WindowRequest request;
  request.steps = start.steps;
  request.fromStep = start.fromStep;
  request.durationNs = start.durationNs;
  // A duration that starts at an agreed step (attach --duration on ranks with step markers).
  request.atStepBoundary = start.durationNs > 0 && start.fromStep >= 0;
  request.reason = std::move(reason);
  return request;
}

}  // namespace bubblescope::agent
