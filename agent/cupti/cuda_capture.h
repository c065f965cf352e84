#pragma once
// CUDA capture through CUPTI's activity API. The CUDA driver calls the agent's
// InitializeInjection (CUDA_INJECTION64_PATH) from cuInit; that starts CUPTI: one subscriber
// named "bubblescope", a pool of host buffers, every activity kind enabled at once (enabling
// CONCURRENT_KERNEL later stalls the job for seconds: kineto#542). Completed buffers go to the
// writer thread, which decodes them and keeps what falls inside capture windows. Any failure
// (no driver, no libcupti, another CUPTI client such as Nsight Systems or Kineto) turns CUDA
// capture off with one line and records why in the trace; NVTX and NCCL capture go on.
#include <atomic>
#include <cstdint>
#include <string>

namespace bubblescope::agent {

// Start-up (the agent's init): whether CUDA capture is wanted, and why not when it is not.
// Registers the writer-side record type and hooks.
void configureCudaCapture(bool requested, std::string noteWhenOff);
// From InitializeInjection (the driver's cuInit). Once; never throws.
void startCudaCapture();

// What the trace's metadata says: cuda_capture and cuda_note.
struct CudaCaptureState {
  bool active = false;
  std::string note;
};
CudaCaptureState cudaCaptureState();

// External correlation: CUDA work launched by this thread between push and pop is tied to `id`
// (correlations.external_kind: NcclCall or NvtxRange). A relaxed load when CUDA is not traced.
enum class ExternalIdKind : uint8_t { NcclCall, NvtxRange };
namespace detail {
extern std::atomic<bool> g_cudaTracing;
void pushExternalId(ExternalIdKind kind, uint64_t id);
void popExternalId(ExternalIdKind kind);
}  // namespace detail

inline bool cudaTracing() {
  return detail::g_cudaTracing.load(std::memory_order_relaxed);
}
inline void pushCudaExternalId(ExternalIdKind kind, uint64_t id) {
  if (cudaTracing()) detail::pushExternalId(kind, id);
}
inline void popCudaExternalId(ExternalIdKind kind) {
  if (cudaTracing()) detail::popExternalId(kind);
}

}  // namespace bubblescope::agent
