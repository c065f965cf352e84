// A small CUDA + NCCL program for scripts/gpu-validation.sh (needs a GPU; built by the script
// with the toolkit's g++ flags, not by the project build). One process, one GPU, a single-rank
// communicator: per step, inside an NVTX range "step N", copies in, a few cuBLAS kernels, a
// memset, an ncclAllReduce, a grouped ncclSend/ncclRecv to itself (peer 0), a copy out and a
// stream synchronisation. Then a launch-heavy loop (tiny AXPY kernels) whose time it prints, to
// compare with and without `bubblescope record`.
//   cuda_nccl_app STEPS LOOP_LAUNCHES
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <nccl.h>
#include <nvtx3/nvToolsExt.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

void cudaCheck(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "cuda_nccl_app: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}
void blasCheck(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "cuda_nccl_app: %s: cuBLAS status %d\n", what, static_cast<int>(s));
    std::exit(1);
  }
}
void ncclCheck(ncclResult_t r, const char* what) {
  if (r != ncclSuccess) {
    std::fprintf(stderr, "cuda_nccl_app: %s: %s\n", what, ncclGetErrorString(r));
    std::exit(1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int steps = argc > 1 ? std::atoi(argv[1]) : 5;
  const int launches = argc > 2 ? std::atoi(argv[2]) : 20000;
  constexpr int n = 512;                        // GEMM size
  constexpr size_t kAllReduceFloats = 1 << 20;  // 4 MiB
  constexpr size_t kSendFloats = 1 << 18;       // 1 MiB

  cudaCheck(cudaSetDevice(0), "cudaSetDevice");
  cudaStream_t stream;
  cudaCheck(cudaStreamCreate(&stream), "cudaStreamCreate");
  cublasHandle_t blas;
  blasCheck(cublasCreate(&blas), "cublasCreate");
  blasCheck(cublasSetStream(blas, stream), "cublasSetStream");
  ncclUniqueId id;
  ncclCheck(ncclGetUniqueId(&id), "ncclGetUniqueId");
  ncclComm_t comm;
  ncclCheck(ncclCommInitRank(&comm, 1, id, 0), "ncclCommInitRank");

  float *a, *b, *c, *grad, *send, *recv;
  cudaCheck(cudaMalloc(&a, n * n * sizeof(float)), "cudaMalloc");
  cudaCheck(cudaMalloc(&b, n * n * sizeof(float)), "cudaMalloc");
  cudaCheck(cudaMalloc(&c, n * n * sizeof(float)), "cudaMalloc");
  cudaCheck(cudaMalloc(&grad, kAllReduceFloats * sizeof(float)), "cudaMalloc");
  cudaCheck(cudaMalloc(&send, kSendFloats * sizeof(float)), "cudaMalloc");
  cudaCheck(cudaMalloc(&recv, kSendFloats * sizeof(float)), "cudaMalloc");
  std::vector<float> host(n * n, 0.01f);
  const float one = 1.0f, zero = 0.0f;

  for (int s = 0; s < steps; ++s) {
    nvtxRangePushA(("step " + std::to_string(s)).c_str());
    cudaCheck(cudaMemcpyAsync(a, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice,
                              stream),
              "cudaMemcpyAsync");
    cudaCheck(cudaMemcpyAsync(b, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice,
                              stream),
              "cudaMemcpyAsync");
    for (int k = 0; k < 4; ++k) {
      blasCheck(cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n),
                "cublasSgemm");
    }
    cudaCheck(cudaMemsetAsync(grad, 0, kAllReduceFloats * sizeof(float), stream),
              "cudaMemsetAsync");
    ncclCheck(ncclAllReduce(grad, grad, kAllReduceFloats, ncclFloat32, ncclSum, comm, stream),
              "ncclAllReduce");
    ncclCheck(ncclGroupStart(), "ncclGroupStart");
    ncclCheck(ncclSend(send, kSendFloats, ncclFloat32, 0, comm, stream), "ncclSend");
    ncclCheck(ncclRecv(recv, kSendFloats, ncclFloat32, 0, comm, stream), "ncclRecv");
    ncclCheck(ncclGroupEnd(), "ncclGroupEnd");
    cudaCheck(cudaMemcpyAsync(host.data(), c, host.size() * sizeof(float), cudaMemcpyDeviceToHost,
                              stream),
              "cudaMemcpyAsync");
    cudaCheck(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    nvtxRangePop();
  }

  // Launch-heavy: tiny kernels back to back, the worst case for per-launch tracing cost.
  nvtxRangePushA("launch loop");
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < launches; ++i) {
    blasCheck(cublasSaxpy(blas, 256, &one, a, 1, c, 1), "cublasSaxpy");
  }
  cudaCheck(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  const auto ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start)
          .count();
  nvtxRangePop();
  std::printf("launch_loop_ns %lld per_launch_ns %.1f\n", static_cast<long long>(ns),
              static_cast<double>(ns) / launches);

  ncclCheck(ncclCommDestroy(comm), "ncclCommDestroy");
  for (float* p : {a, b, c, grad, send, recv}) cudaFree(p);
  cublasDestroy(blas);
  cudaStreamDestroy(stream);
  return 0;
}
