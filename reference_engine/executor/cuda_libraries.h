#pragma once
// The CUDA runtime, cuBLAS and NCCL for the cuda compute mode, loaded at run time: `bubblescope`
// itself links none of them, so it starts as fast and runs everywhere, and a machine without a
// GPU driver gets one sentence instead of a loader error. NCCL calls are looked up in the global
// scope, so a preloaded capture agent's hooks see them as they would see a training job's.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <string>

namespace bubblescope::engine {

struct CudaLibraries {
  cudaError_t (*getDeviceCount)(int*);
  cudaError_t (*setDevice)(int);
  cudaError_t (*malloc)(void**, size_t);
  cudaError_t (*free)(void*);
  cudaError_t (*memcpyAsync)(void*, const void*, size_t, cudaMemcpyKind, cudaStream_t);
  cudaError_t (*memsetAsync)(void*, int, size_t, cudaStream_t);
  cudaError_t (*streamCreate)(cudaStream_t*);
  cudaError_t (*streamSynchronize)(cudaStream_t);
  const char* (*getErrorString)(cudaError_t);

  cublasStatus_t (*blasCreate)(cublasHandle_t*);
  cublasStatus_t (*blasSetStream)(cublasHandle_t, cudaStream_t);
  cublasStatus_t (*sgemm)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                          const float*, const float*, int, const float*, int, const float*, float*,
                          int);
  cublasStatus_t (*saxpy)(cublasHandle_t, int, const float*, const float*, int, float*, int);

  ncclResult_t (*getUniqueId)(ncclUniqueId*);
  ncclResult_t (*commInitRank)(ncclComm_t*, int, ncclUniqueId, int);
  ncclResult_t (*allReduce)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t,
                            cudaStream_t);
  ncclResult_t (*commDestroy)(ncclComm_t);
};

// Why the cuda compute mode cannot run here ("" when it can: a driver, a GPU, the libraries).
// One sentence, for the command line to print. Loads the libraries on first use.
std::string cudaComputeUnavailable();
// The loaded libraries; throws std::runtime_error with cudaComputeUnavailable()'s sentence.
const CudaLibraries& cudaLibraries();

}  // namespace bubblescope::engine
