#include "reference_engine/executor/compute.h"

#include <stdexcept>

#if BUBBLESCOPE_HAVE_CUDA_COMPUTE
#include "reference_engine/executor/cuda_libraries.h"
#endif

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

std::string computeModeUnavailable(ComputeMode mode) {
  if (mode != ComputeMode::Cuda) return "";
#if BUBBLESCOPE_HAVE_CUDA_COMPUTE
  return cudaComputeUnavailable();
#else
  return "the cuda compute mode is not in this build (it needs the CUDA toolkit at build time)";
#endif
}

}  // namespace bubblescope::engine
