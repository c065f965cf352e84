// One rank of a 4-rank NCCL job for the hang tests, linked against the fake libnccl.so.2: it
// joins the communicator as $RANK, runs three all-reduces, then what MODE says:
//   clean            rank 0 sends 100 floats to rank 1, which receives them; a fourth all-reduce
//   skip-collective  as clean, but rank 3 never enters the fourth all-reduce
//   p2p-count        rank 1 posts a receive of 200 floats for the 100 rank 0 sends
//   stuck-p2p        (CUDA) rank 0's send and rank 1's matching receive launch kernels that never
//                    finish; every rank then hangs until it kills itself (SIGKILL)
//   killed-finished  (CUDA) as stuck-p2p, but the kernels finish before the ranks kill themselves
// Options (after the mode): --before N runs N more all-reduces and rank 0 -> 1 sends first (a
// history longer than the agent keeps); --linger S stays S seconds before destroying the
// communicator, as a rank whose stream waits on the missing call would (a live `hang` target);
// --cupti FAKE_CUPTI_LIBRARY plays the CUDA driver: it calls the preloaded agent's
// InitializeInjection and makes a kernel (through the fake CUPTI) wherever the fake NCCL launches
// one (the CUDA modes need it); --direct 1 calls the library's own definitions (dlsym on its
// handle), past the agent's hooks, as a job whose NCCL is linked in statically does (with
// FAKE_NCCL_NVTX=1 the agent then sees the calls through NCCL's own NVTX ranges only).
#include <dlfcn.h>
#include <nccl.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

#include <cupti_driver_cbid.h>

#include "tests/agent/fake_cupti.h"
#include "tests/agent/fake_nccl.h"

namespace {

// How long a hung rank lives on after its last call before it is killed: longer than the
// analysis's settle margin (device_waits.h, 2 s), so a kernel still running then never finished.
constexpr auto kHungFor = std::chrono::milliseconds(3500);

struct Gpu {
  FakeCuptiLaunchKernelFn launch = nullptr;
  bool hang = false;  // the kernels launched now never finish
};

uint64_t realtimeNs() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(ts.tv_nsec);
}

// NCCL launches through the driver, on the calling thread, inside the call.
void onLaunch(void* context, const char* kernel, cudaStream_t) {
  auto* gpu = static_cast<Gpu*>(context);
  const uint64_t now = realtimeNs();
  const FakeCuptiKernel k{kernel, now + 5'000, gpu->hang ? 0 : now + 60'000,
                          0,      7,           CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
                          1};
  gpu->launch(&k);
}

// The CUDA driver's part: the agent's injection, then kernels through the fake CUPTI.
bool startCuda(const char* fakeCupti, Gpu& gpu) {
  auto initializeInjection =
      reinterpret_cast<int (*)()>(dlsym(RTLD_DEFAULT, "InitializeInjection"));
  if (initializeInjection == nullptr) return false;
  initializeInjection();
  void* cupti = dlopen(fakeCupti, RTLD_NOW | RTLD_NOLOAD);
  if (cupti == nullptr) return false;
  gpu.launch = reinterpret_cast<FakeCuptiLaunchKernelFn>(dlsym(cupti, "fakeCuptiLaunchKernel"));
  if (gpu.launch == nullptr) return false;
  fakeNcclSetLaunchHook(&onLaunch, &gpu);
  return true;
}

// The NCCL calls the job makes: through the program's binding (the agent's hooks when it is
// preloaded), or the library's own definitions.
struct Nccl {
  decltype(&ncclGetUniqueId) getUniqueId = &ncclGetUniqueId;
  decltype(&ncclCommInitRank) commInitRank = &ncclCommInitRank;
  decltype(&ncclAllReduce) allReduce = &ncclAllReduce;
  decltype(&ncclSend) send = &ncclSend;
  decltype(&ncclRecv) recv = &ncclRecv;
  decltype(&ncclCommDestroy) commDestroy = &ncclCommDestroy;
};

template <class Fn>
bool own(void* lib, const char* name, Fn& slot) {
  slot = reinterpret_cast<Fn>(dlsym(lib, name));
  return slot != nullptr;
}

bool pastTheHooks(Nccl& n) {
  void* lib = dlopen("libnccl.so.2", RTLD_NOW | RTLD_NOLOAD);
  return lib != nullptr && own(lib, "ncclGetUniqueId", n.getUniqueId) &&
         own(lib, "ncclCommInitRank", n.commInitRank) && own(lib, "ncclAllReduce", n.allReduce) &&
         own(lib, "ncclSend", n.send) && own(lib, "ncclRecv", n.recv) &&
         own(lib, "ncclCommDestroy", n.commDestroy);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  const char* rankText = std::getenv("RANK");
  const bool cudaMode = mode == "stuck-p2p" || mode == "killed-finished";
  int before = 0, linger = 0;
  const char* cupti = nullptr;
  bool direct = false;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string option = argv[i];
    if (option == "--before") before = std::atoi(argv[i + 1]);
    if (option == "--linger") linger = std::atoi(argv[i + 1]);
    if (option == "--cupti") cupti = argv[i + 1];
    if (option == "--direct") direct = std::atoi(argv[i + 1]) != 0;
  }
  if (rankText == nullptr ||
      (mode != "clean" && mode != "skip-collective" && mode != "p2p-count" && !cudaMode) ||
      (cudaMode && cupti == nullptr)) {
    std::fprintf(stderr,
                 "usage: RANK=N hang_nccl_app clean|skip-collective|p2p-count|stuck-p2p|"
                 "killed-finished [--before N] [--linger S] [--cupti FAKE_CUPTI_LIBRARY] "
                 "[--direct 1]\n");
    return 2;
  }
  static Gpu gpu;  // the launch hook's context, for the whole process
  if (cupti != nullptr && !startCuda(cupti, gpu)) {
    std::fprintf(stderr, "hang_nccl_app: the agent is not preloaded or did not load %s\n", cupti);
    return 3;
  }
  Nccl nccl;
  if (direct && !pastTheHooks(nccl)) {
    std::fprintf(stderr, "hang_nccl_app: libnccl.so.2's own definitions not found\n");
    return 3;
  }
  const int rank = std::atoi(rankText);
  const auto stream = reinterpret_cast<cudaStream_t>(uintptr_t{0x5000});
  ncclUniqueId id;
  nccl.getUniqueId(&id);  // the fake gives every rank the same id, as rank 0's broadcast would
  ncclComm_t comm = nullptr;
  if (nccl.commInitRank(&comm, 4, id, rank) != ncclSuccess) return 3;
  std::vector<float> a(256, 1.0f), b(256, 0.0f);
  for (int i = 0; i < 3; ++i)
    nccl.allReduce(a.data(), b.data(), 256, ncclFloat32, ncclSum, comm, stream);
  for (int i = 0; i < before; ++i) {
    nccl.allReduce(a.data(), b.data(), 256, ncclFloat32, ncclSum, comm, stream);
    if (rank == 0) nccl.send(a.data(), 100, ncclFloat32, 1, comm, stream);
    if (rank == 1) nccl.recv(b.data(), 100, ncclFloat32, 0, comm, stream);
  }
  gpu.hang = mode == "stuck-p2p";
  if (rank == 0) nccl.send(a.data(), 100, ncclFloat32, 1, comm, stream);
  if (rank == 1) nccl.recv(b.data(), mode == "p2p-count" ? 200 : 100, ncclFloat32, 0, comm, stream);
  if (cudaMode) {
    // Blocked (in a synchronisation waiting for the stream) until something kills the job.
    std::this_thread::sleep_for(kHungFor);
    raise(SIGKILL);
  }
  if (!(mode == "skip-collective" && rank == 3)) {
    nccl.allReduce(a.data(), b.data(), 256, ncclFloat32, ncclSum, comm, stream);
  }
  if (linger > 0) sleep(static_cast<unsigned>(linger));
  nccl.commDestroy(comm);
  return 0;
}
