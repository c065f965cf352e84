#include "reference_engine/executor/cuda_compute.h"

#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#include "reference_engine/executor/clock.h"

namespace bubblescope::engine {
namespace {

int deviceForThisProcess(int devices) {
  const char* local = std::getenv("LOCAL_RANK");
  const int rank = local != nullptr ? std::atoi(local) : 0;
  return devices > 0 && rank > 0 ? rank % devices : 0;
}

// Small weights, the same in every process for one seed (a linear congruential sequence).
std::vector<float> initialWeights(size_t n, uint64_t seed, int virtualStage) {
  std::vector<float> w(n);
  uint64_t s = seed * 6364136223846793005ull + static_cast<uint64_t>(virtualStage) + 1;
  for (float& v : w) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    v = (static_cast<float>(s >> 40) / static_cast<float>(1 << 24) - 0.5f) * 0.1f;
  }
  return w;
}

}  // namespace

void CudaCompute::check(cudaError_t e, const char* what) const {
  if (e != cudaSuccess) {
    throw std::runtime_error(std::string("cuda: ") + what + ": " + cuda_.getErrorString(e));
  }
}

void CudaCompute::check(cublasStatus_t s, const char* what) const {
  if (s != CUBLAS_STATUS_SUCCESS) {
    throw std::runtime_error(std::string("cuda: ") + what + ": cuBLAS status " +
                             std::to_string(static_cast<int>(s)));
  }
}

void CudaCompute::check(ncclResult_t r, const char* what) const {
  if (r != ncclSuccess) {
    throw std::runtime_error(std::string("cuda: ") + what + ": NCCL result " +
                             std::to_string(static_cast<int>(r)));
  }
}

float* CudaCompute::deviceBuffer(size_t floats) {
  void* p = nullptr;
  check(cuda_.malloc(&p, floats * sizeof(float)), "cudaMalloc");
  buffers_.push_back(static_cast<float*>(p));
  check(cuda_.memsetAsync(p, 0, floats * sizeof(float), stream_), "cudaMemsetAsync");
  return static_cast<float*>(p);
}

CudaCompute::CudaCompute(const Schedule& schedule, int stage, const MlpShape& shape, uint64_t seed)
    : cuda_(cudaLibraries()),
      shape_(shape),
      seed_(seed),
      activation_(static_cast<size_t>(shape.batch) * shape.width) {
  int devices = 0;
  check(cuda_.getDeviceCount(&devices), "cudaGetDeviceCount");
  check(cuda_.setDevice(deviceForThisProcess(devices)), "cudaSetDevice");
  check(cuda_.streamCreate(&stream_), "cudaStreamCreate");
  check(cuda_.blasCreate(&blas_), "cublasCreate");
  check(cuda_.blasSetStream(blas_, stream_), "cublasSetStream");
  // grad_sync's communicator: this process alone (the stages sum their values over the
  // engine's own channels).
  ncclUniqueId id;
  check(cuda_.getUniqueId(&id), "ncclGetUniqueId");
  check(cuda_.commInitRank(&comm_, 1, id, 0), "ncclCommInitRank");

  const size_t weights = static_cast<size_t>(shape.width) * shape.width;
  for (int chunk = 0; chunk < schedule.v; ++chunk) {
    Layer& layer = layers_[chunk];
    layer.w = deviceBuffer(weights);
    layer.dw = deviceBuffer(weights);
    const std::vector<float> w = initialWeights(weights, seed, schedule.virtualStage(stage, chunk));
    check(cuda_.memcpyAsync(layer.w, w.data(), weights * sizeof(float), cudaMemcpyHostToDevice,
                            stream_),
          "cudaMemcpyAsync");
  }
  out_ = deviceBuffer(activation_);
  check(cuda_.streamSynchronize(stream_), "cudaStreamSynchronize");
}

CudaCompute::~CudaCompute() {
  if (stream_ != nullptr) cuda_.streamSynchronize(stream_);
  if (comm_ != nullptr) cuda_.commDestroy(comm_);
  for (float* b : buffers_) cuda_.free(b);
}

void CudaCompute::uploadInput(float* x, const Payload& input, int step, int mb) {
  const size_t bytes = activation_ * sizeof(float);
  Tensor generated;
  const void* host = input.data();
  if (input.empty()) {
    generated = makeInput(shape_, seed_, step, mb);  // the first stage reads its data
    host = generated.data();
  } else if (input.size() != bytes) {
    throw std::runtime_error("cuda: received " + std::to_string(input.size()) +
                             " bytes, expected a " + std::to_string(shape_.batch) + "x" +
                             std::to_string(shape_.width) + " tensor");
  }
  check(cuda_.memcpyAsync(x, host, bytes, cudaMemcpyHostToDevice, stream_), "cudaMemcpyAsync");
  // The copy reads host memory that goes away with this call.
  check(cuda_.streamSynchronize(stream_), "cudaStreamSynchronize");
}

Payload CudaCompute::download(const float* device) {
  Payload out(activation_ * sizeof(float));
  check(cuda_.memcpyAsync(out.data(), device, out.size(), cudaMemcpyDeviceToHost, stream_),
        "cudaMemcpyAsync");
  check(cuda_.streamSynchronize(stream_), "cudaStreamSynchronize");
  return out;
}

Payload CudaCompute::runOp(const PlannedOp& planned, int step, Payload input, int64_t,
                           double scale) {
  const int64_t start = monotonicNs();
  const Op& op = planned.op;
  Layer& layer = layers_.at(op.chunk);
  const int n = shape_.width, b = shape_.batch;
  const float one = 1.0f, zero = 0.0f;
  Payload out;
  switch (op.kind) {
    case OpKind::F: {
      // One input buffer per microbatch, reused every step (W reads it after B).
      float*& x = layer.x[op.mb];
      if (x == nullptr) x = deviceBuffer(activation_);
      uploadInput(x, input, step, op.mb);
      // Row-major Y = X·W is column-major Yᵀ = Wᵀ·Xᵀ.
      check(cuda_.sgemm(blas_, CUBLAS_OP_N, CUBLAS_OP_N, n, b, n, &one, layer.w, n, x, n, &zero,
                        out_, n),
            "cublasSgemm (F)");
      if (!planned.lastVirtualStage) {
        out = download(out_);
      } else {
        check(cuda_.streamSynchronize(stream_), "cudaStreamSynchronize");
      }
      break;
    }
    case OpKind::B:
    case OpKind::BW: {
      // One gradient buffer per microbatch as well: zero-bubble schedules run W ops late.
      float*& dy = layer.dy[op.mb];
      if (dy == nullptr) dy = deviceBuffer(activation_);
      if (planned.lastVirtualStage) {
        // The last stage's loss gradient: the latest output (only the GPU work matters here).
        check(cuda_.memcpyAsync(dy, out_, activation_ * sizeof(float), cudaMemcpyDeviceToDevice,
                                stream_),
              "cudaMemcpyAsync");
      } else {
        if (input.size() != activation_ * sizeof(float)) {
          throw std::runtime_error("cuda: a gradient of the wrong size arrived");
        }
        check(cuda_.memcpyAsync(dy, input.data(), input.size(), cudaMemcpyHostToDevice, stream_),
              "cudaMemcpyAsync");
      }
      // dX = dY·Wᵀ.
      check(cuda_.sgemm(blas_, CUBLAS_OP_T, CUBLAS_OP_N, n, b, n, &one, layer.w, n, dy, n, &zero,
                        out_, n),
            "cublasSgemm (B)");
      if (op.kind == OpKind::BW) {
        check(cuda_.sgemm(blas_, CUBLAS_OP_N, CUBLAS_OP_T, n, n, b, &one, dy, n, layer.x.at(op.mb),
                          n, &one, layer.dw, n),
              "cublasSgemm (W)");
      }
      if (planned.output.has_value()) {
        out = download(out_);
      } else {
        check(cuda_.streamSynchronize(stream_), "cudaStreamSynchronize");
      }
      break;
    }
    case OpKind::W:
      // dW += Xᵀ·dY, with the gradient its B kept (the schedule runs W after its B).
      check(cuda_.sgemm(blas_, CUBLAS_OP_N, CUBLAS_OP_T, n, n, b, &one, layer.dy.at(op.mb), n,
                        layer.x.at(op.mb), n, &one, layer.dw, n),
            "cublasSgemm (W)");
      check(cuda_.streamSynchronize(stream_), "cudaStreamSynchronize");
      break;
  }
  // A slow stage or jitter stretches the op as it would stretch real kernels.
  if (scale > 1.0) {
    const auto elapsed = static_cast<double>(monotonicNs() - start);
    sleepUntil(start + static_cast<int64_t>(elapsed * scale));
  }
  return out;
}

GradSyncValues CudaCompute::gradSyncContribution() {
  const size_t weights = static_cast<size_t>(shape_.width) * shape_.width;
  for (auto& [chunk, layer] : layers_) {
    check(cuda_.allReduce(layer.dw, layer.dw, weights, ncclFloat32, ncclSum, comm_, stream_),
          "ncclAllReduce");
  }
  check(cuda_.streamSynchronize(stream_), "cudaStreamSynchronize");
  return {};
}

void CudaCompute::runOptimizer(const GradSyncValues&) {
  const int weights = shape_.width * shape_.width;
  const float step = -static_cast<float>(shape_.lr) * 1e-3f;
  for (auto& [chunk, layer] : layers_) {
    check(cuda_.saxpy(blas_, weights, &step, layer.dw, 1, layer.w, 1), "cublasSaxpy");
    check(cuda_.memsetAsync(layer.dw, 0, static_cast<size_t>(weights) * sizeof(float), stream_),
          "cudaMemsetAsync");
  }
  check(cuda_.streamSynchronize(stream_), "cudaStreamSynchronize");
}

}  // namespace bubblescope::engine
