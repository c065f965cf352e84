// A small NCCL program for the agent's tests, linked against the fake libnccl.so.2
// (fake_nccl.cpp). It makes a 4-rank communicator as rank 1, sends and receives in a group, runs
// every collective, makes bad calls whose errors must come back unchanged, splits and destroys,
// and prints every result and what reached the library, so a run under the agent can be compared
// with a run without it.
//   nccl_test_app calls    the calls through the NCCL symbols (the agent's hooks when preloaded)
//   nccl_test_app direct   the same through the library's own definitions (dlsym on its handle),
//                          as a program with NCCL linked in statically: only NCCL's NVTX ranges
//                          can tell the agent about them
//   nccl_test_app inject   first call InitializeInjection as the CUDA driver would at cuInit,
//                          then `calls`
//   nccl_test_app env      print CUDA_INJECTION64_PATH
#include <dlfcn.h>
#include <nccl.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern "C" uint64_t fakeNcclCalls();
extern "C" uint64_t fakeNcclCommHash(ncclComm_t comm);

namespace {

// The entry points, taken either from the global scope (what the program's own calls bind to)
// or from libnccl's handle (its definitions, past any interposer).
struct Nccl {
  decltype(&ncclGetUniqueId) getUniqueId;
  decltype(&ncclCommInitRank) initRank;
  decltype(&ncclCommSplit) split;
  decltype(&ncclCommDestroy) destroy;
  decltype(&ncclSend) send;
  decltype(&ncclRecv) recv;
  decltype(&ncclAllReduce) allReduce;
  decltype(&ncclAllGather) allGather;
  decltype(&ncclReduceScatter) reduceScatter;
  decltype(&ncclBroadcast) broadcast;
  decltype(&ncclReduce) reduce;
  decltype(&ncclGroupStart) groupStart;
  decltype(&ncclGroupEnd) groupEnd;
};

Nccl linked() {
  return Nccl{&ncclGetUniqueId,   &ncclCommInitRank, &ncclCommSplit, &ncclCommDestroy,
              &ncclSend,          &ncclRecv,         &ncclAllReduce, &ncclAllGather,
              &ncclReduceScatter, &ncclBroadcast,    &ncclReduce,    &ncclGroupStart,
              &ncclGroupEnd};
}

template <class Fn>
void take(void* lib, const char* name, Fn& slot) {
  slot = reinterpret_cast<Fn>(dlsym(lib, name));
  if (slot == nullptr) {
    std::fprintf(stderr, "nccl_test_app: %s not found\n", name);
    std::exit(3);
  }
}

Nccl direct() {
  void* lib = dlopen("libnccl.so.2", RTLD_NOW | RTLD_NOLOAD);
  if (lib == nullptr) {
    std::fprintf(stderr, "nccl_test_app: libnccl.so.2 is not loaded\n");
    std::exit(3);
  }
  Nccl n{};
  take(lib, "ncclGetUniqueId", n.getUniqueId);
  take(lib, "ncclCommInitRank", n.initRank);
  take(lib, "ncclCommSplit", n.split);
  take(lib, "ncclCommDestroy", n.destroy);
  take(lib, "ncclSend", n.send);
  take(lib, "ncclRecv", n.recv);
  take(lib, "ncclAllReduce", n.allReduce);
  take(lib, "ncclAllGather", n.allGather);
  take(lib, "ncclReduceScatter", n.reduceScatter);
  take(lib, "ncclBroadcast", n.broadcast);
  take(lib, "ncclReduce", n.reduce);
  take(lib, "ncclGroupStart", n.groupStart);
  take(lib, "ncclGroupEnd", n.groupEnd);
  return n;
}

// A fixed stream handle, as a program would pass its cudaStream_t.
const auto kStream = reinterpret_cast<cudaStream_t>(uintptr_t{0x5000});

int run(const Nccl& n) {
  std::vector<int> results;
  ncclUniqueId id;
  results.push_back(n.getUniqueId(&id));
  ncclComm_t comm = nullptr;
  results.push_back(n.initRank(&comm, 4, id, 1));
  std::vector<float> send(256, 1.5f), recv(256, 0.0f);

  results.push_back(n.groupStart());
  results.push_back(n.send(send.data(), 100, ncclFloat32, 2, comm, kStream));
  results.push_back(n.recv(recv.data(), 50, ncclInt64, 0, comm, kStream));
  results.push_back(n.groupEnd());

  results.push_back(
      n.allReduce(send.data(), recv.data(), 256, ncclFloat32, ncclSum, comm, kStream));
  const float reduced = recv[7];
  results.push_back(n.allGather(send.data(), recv.data(), 64, ncclBfloat16, comm, kStream));
  results.push_back(
      n.reduceScatter(send.data(), recv.data(), 32, ncclFloat64, ncclMax, comm, kStream));
  results.push_back(n.broadcast(send.data(), recv.data(), 16, ncclInt8, 3, comm, kStream));
  results.push_back(n.reduce(send.data(), recv.data(), 8, ncclUint32, ncclSum, 0, comm, kStream));
  // Errors NCCL reports must reach the program unchanged.
  results.push_back(n.send(send.data(), 1, ncclFloat32, 9, comm, kStream));  // no rank 9
  results.push_back(n.groupEnd());                                           // no group open

  ncclComm_t half = nullptr;
  results.push_back(n.split(comm, 1, 0, &half, nullptr));
  results.push_back(n.allReduce(send.data(), recv.data(), 4, ncclFloat16, ncclSum, half, kStream));
  const uint64_t halfHash = fakeNcclCommHash(half);
  results.push_back(n.destroy(half));
  const uint64_t commHash = fakeNcclCommHash(comm);
  results.push_back(n.destroy(comm));

  std::printf("results");
  for (int r : results) std::printf(" %d", r);
  std::printf("\nreduced %.1f\ncalls %llu\nid", reduced,
              static_cast<unsigned long long>(fakeNcclCalls()));
  for (char c : id.internal) std::printf(" %d", static_cast<int>(static_cast<unsigned char>(c)));
  std::printf("\nfake_hash %llu %llu\n", static_cast<unsigned long long>(commHash),
              static_cast<unsigned long long>(halfHash));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "calls") return run(linked());
  if (mode == "direct") return run(direct());
  if (mode == "inject") {
    // What the CUDA driver does at cuInit with CUDA_INJECTION64_PATH set.
    using Init = int (*)();
    auto init = reinterpret_cast<Init>(dlsym(RTLD_DEFAULT, "InitializeInjection"));
    std::printf("injection %d\n", init != nullptr ? init() : -1);
    return run(linked());
  }
  if (mode == "env") {
    const char* v = std::getenv("CUDA_INJECTION64_PATH");
    std::printf("CUDA_INJECTION64_PATH=%s\n", v != nullptr ? v : "");
    return 0;
  }
  std::fprintf(stderr, "usage: nccl_test_app calls|direct|inject|env\n");
  return 2;
}
