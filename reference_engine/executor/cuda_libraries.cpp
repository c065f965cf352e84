#include "reference_engine/executor/cuda_libraries.h"

#include <dlfcn.h>

#include <mutex>
#include <stdexcept>

namespace bubblescope::engine {
namespace {

struct Loaded {
  CudaLibraries api{};
  std::string whyNot;
};

// The first of `names` that loads, into the global scope (NCCL's symbols must be found by name
// through the preloaded agent, cuBLAS needs the runtime's).
void* openFirst(std::initializer_list<const char*> names) {
  for (const char* name : names) {
    if (void* h = dlopen(name, RTLD_NOW | RTLD_GLOBAL)) return h;
  }
  return nullptr;
}

template <class Fn>
bool take(void* scope, const char* name, Fn& slot, std::string& missing) {
  slot = reinterpret_cast<Fn>(dlsym(scope, name));
  if (slot == nullptr && missing.empty()) missing = name;
  return slot != nullptr;
}

Loaded load() {
  Loaded l;
  if (dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL) == nullptr) {
    l.whyNot =
        "the cuda compute mode needs a GPU: no CUDA driver here (libcuda.so.1 cannot be "
        "loaded)";
    return l;
  }
  void* cudart = openFirst({"libcudart.so.13", "libcudart.so.12", "libcudart.so"});
  void* cublas = openFirst({"libcublas.so.13", "libcublas.so.12", "libcublas.so"});
  void* nccl = openFirst({"libnccl.so.2", "libnccl.so"});
  if (cudart == nullptr || cublas == nullptr || nccl == nullptr) {
    l.whyNot = std::string("the cuda compute mode needs the CUDA runtime, cuBLAS and NCCL: ") +
               (cudart == nullptr   ? "libcudart"
                : cublas == nullptr ? "libcublas"
                                    : "libnccl") +
               " cannot be loaded (add the CUDA toolkit's lib64 to LD_LIBRARY_PATH)";
    return l;
  }
  CudaLibraries& a = l.api;
  std::string missing;
  take(cudart, "cudaGetDeviceCount", a.getDeviceCount, missing);
  take(cudart, "cudaSetDevice", a.setDevice, missing);
  take(cudart, "cudaMalloc", a.malloc, missing);
  take(cudart, "cudaFree", a.free, missing);
  take(cudart, "cudaMemcpyAsync", a.memcpyAsync, missing);
  take(cudart, "cudaMemsetAsync", a.memsetAsync, missing);
  take(cudart, "cudaStreamCreate", a.streamCreate, missing);
  take(cudart, "cudaStreamSynchronize", a.streamSynchronize, missing);
  take(cudart, "cudaGetErrorString", a.getErrorString, missing);
  take(cublas, "cublasCreate_v2", a.blasCreate, missing);
  take(cublas, "cublasSetStream_v2", a.blasSetStream, missing);
  take(cublas, "cublasSgemm_v2", a.sgemm, missing);
  take(cublas, "cublasSaxpy_v2", a.saxpy, missing);
  // By name in the global scope: an LD_PRELOADed agent's wrappers come first, as for any job.
  take(RTLD_DEFAULT, "ncclGetUniqueId", a.getUniqueId, missing);
  take(RTLD_DEFAULT, "ncclCommInitRank", a.commInitRank, missing);
  take(RTLD_DEFAULT, "ncclAllReduce", a.allReduce, missing);
  take(RTLD_DEFAULT, "ncclCommDestroy", a.commDestroy, missing);
  if (!missing.empty()) {
    l.whyNot = "the cuda compute mode cannot find " + missing + " in the CUDA libraries";
    return l;
  }
  int devices = 0;
  const cudaError_t e = a.getDeviceCount(&devices);
  if (e != cudaSuccess || devices < 1) {
    l.whyNot = std::string("the cuda compute mode needs a GPU: ") +
               (e != cudaSuccess ? a.getErrorString(e) : "no CUDA device is visible");
  }
  return l;
}

const Loaded& loaded() {
  static const Loaded* l = new Loaded(load());  // kept to exit: CUDA tears down at exit itself
  return *l;
}

}  // namespace

std::string cudaComputeUnavailable() {
  return loaded().whyNot;
}

const CudaLibraries& cudaLibraries() {
  const Loaded& l = loaded();
  if (!l.whyNot.empty()) throw std::runtime_error(l.whyNot);
  return l.api;
}

}  // namespace bubblescope::engine
