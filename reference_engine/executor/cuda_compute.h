#pragma once
// The cuda compute mode: each op is real GPU work on one device, so a run under the capture
// agent has kernels, copies and launch calls to correlate. A virtual stage is a width × width
// layer: F is one GEMM (Y = X·W), B one GEMM (dX = dY·Wᵀ), W one GEMM accumulating dW = Xᵀ·dY
// (BW both), activations and gradients travel between stages through host memory as in the other
// modes. grad_sync all-reduces dW over a single-rank NCCL communicator (NCCL's kernel and the
// agent's NCCL capture in every run, with no second GPU); the optimizer step is one AXPY.
#include <map>

#include "reference_engine/executor/compute.h"
#include "reference_engine/executor/cuda_libraries.h"
#include "reference_engine/executor/mlp.h"
#include "reference_engine/schedule/schedule.h"

namespace bubblescope::engine {

class CudaCompute : public Compute {
 public:
  // Device LOCAL_RANK modulo the devices visible (one GPU per process, as launchers assign).
  // Throws std::runtime_error when CUDA cannot run here.
  CudaCompute(const Schedule& schedule, int stage, const MlpShape& shape, uint64_t seed);
  ~CudaCompute() override;
  CudaCompute(const CudaCompute&) = delete;
  CudaCompute& operator=(const CudaCompute&) = delete;

  Payload runOp(const PlannedOp& op, int step, Payload input, int64_t costNs,
                double scale) override;
  GradSyncValues gradSyncContribution() override;
  void runOptimizer(const GradSyncValues& total) override;

 private:
  struct Layer {
    float* w = nullptr;
    float* dw = nullptr;
    std::map<int, float*> x;   // the forward input of each microbatch, kept for W
    std::map<int, float*> dy;  // the incoming gradient of each microbatch, kept for W
  };
  float* deviceBuffer(size_t floats);
  void uploadInput(float* x, const Payload& input, int step, int mb);
  Payload download(const float* device);
  void check(cudaError_t e, const char* what) const;
  void check(cublasStatus_t s, const char* what) const;
  void check(ncclResult_t r, const char* what) const;

  const CudaLibraries& cuda_;
  MlpShape shape_;
  uint64_t seed_;
  size_t activation_;  // floats in one batch × width tensor
  cudaStream_t stream_ = nullptr;
  cublasHandle_t blas_ = nullptr;
  ncclComm_t comm_ = nullptr;
  std::map<int, Layer> layers_;  // by chunk
  float* out_ = nullptr;         // scratch: the op's output
  std::vector<float*> buffers_;  // every allocation, freed at the end
};

}  // namespace bubblescope::engine
