#include "reference_engine/executor/compute.h"

#include <stdexcept>

namespace bubblescope::engine {

const char* computeModeName(ComputeMode mode) {
  switch (mode) {
    case ComputeMode::Sleep:
      return "sleep";
    case ComputeMode::Mlp:
      return "mlp";
    case ComputeMode::Cuda:
      return "cuda";
  }
  return "?";
}

ComputeMode parseComputeMode(const std::string& name) {
  if (name == "sleep") return ComputeMode::Sleep;
  if (name == "mlp") return ComputeMode::Mlp;
  if (name == "cuda") return ComputeMode::Cuda;
  throw std::invalid_argument("unknown compute mode '" + name + "' (known: sleep, mlp, cuda)");
}

}  // namespace bubblescope::engine
