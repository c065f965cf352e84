#include "reference_engine/executor/engine_config.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "reference_engine/executor/order_fault.h"

namespace bubblescope::engine {

namespace {

// Each stage is a process with two threads per channel: far more than any demo needs.
constexpr int kMaxStages = 256;
constexpr uint64_t kMaxPayload = uint64_t{1} << 30;

}  // namespace

void validate(const EngineConfig& c) {
  const Schedule& s = c.schedule;
  if (s.p < 1 || s.m < 1) throw std::invalid_argument("the schedule has no stages or microbatches");
  if (s.p > kMaxStages) {
    throw std::invalid_argument("p=" + std::to_string(s.p) +
                                " is more stages than the engine runs (" +
                                std::to_string(kMaxStages) + ")");
  }
  if (static_cast<int>(s.stages.size()) != s.p) {
    throw std::invalid_argument("the schedule lists " + std::to_string(s.stages.size()) +
                                " stages for p=" + std::to_string(s.p));
  }
  if (c.steps < 1) throw std::invalid_argument("--steps must be at least 1");
  if (const std::string why = computeModeUnavailable(c.compute); !why.empty()) {
    throw std::invalid_argument(why);
  }
  if (c.payloadBytes > kMaxPayload) {
    throw std::invalid_argument("--payload-bytes " + std::to_string(c.payloadBytes) +
                                " is above the 1 GiB the engine sends per message");
  }
  if (!(c.timeoutSeconds > 0) || !std::isfinite(c.timeoutSeconds)) {
    throw std::invalid_argument("--timeout must be a positive number of seconds");
  }
  if (c.mlp.width < 1 || c.mlp.batch < 1 || c.mlp.width > 4096 || c.mlp.batch > 4096) {
    throw std::invalid_argument("the mlp width and batch must be between 1 and 4096");
  }
  if (!(c.mlp.lr > 0)) throw std::invalid_argument("the mlp learning rate must be above 0");
  for (const Mismatch& mm : c.faults.mismatches) planMismatch(s, mm);  // throws if it cannot bite
  if (c.workerCommand.empty()) throw std::invalid_argument("no worker command configured");
}

}  // namespace bubblescope::engine
