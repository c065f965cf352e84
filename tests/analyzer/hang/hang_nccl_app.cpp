// One rank of a 4-rank NCCL job for the hang tests, linked against the fake libnccl.so.2: it
// joins the communicator as $RANK, runs three all-reduces, then what MODE says:
//   clean            rank 0 sends 100 floats to rank 1, which receives them; a fourth all-reduce
//   skip-collective  as clean, but rank 3 never enters the fourth all-reduce
//   p2p-count        rank 1 posts a receive of 200 floats for the 100 rank 0 sends
// Options (after the mode): --before N runs N more all-reduces and rank 0 -> 1 sends first (a
// history longer than the agent keeps); --linger S stays S seconds before destroying the
// communicator, as a rank whose stream waits on the missing call would (a live `hang` target).
#include <nccl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  const char* rankText = std::getenv("RANK");
  if (rankText == nullptr ||
      (mode != "clean" && mode != "skip-collective" && mode != "p2p-count")) {
    std::fprintf(stderr, "usage: RANK=N hang_nccl_app clean|skip-collective|p2p-count\n");
    return 2;
  }
  const int rank = std::atoi(rankText);
  int before = 0, linger = 0;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string option = argv[i];
    if (option == "--before") before = std::atoi(argv[i + 1]);
    if (option == "--linger") linger = std::atoi(argv[i + 1]);
  }
  const auto stream = reinterpret_cast<cudaStream_t>(uintptr_t{0x5000});
  ncclUniqueId id;
  ncclGetUniqueId(&id);  // the fake gives every rank the same id, as rank 0's broadcast would
  ncclComm_t comm = nullptr;
  if (ncclCommInitRank(&comm, 4, id, rank) != ncclSuccess) return 3;
  std::vector<float> a(256, 1.0f), b(256, 0.0f);
  for (int i = 0; i < 3; ++i)
    ncclAllReduce(a.data(), b.data(), 256, ncclFloat32, ncclSum, comm, stream);
  for (int i = 0; i < before; ++i) {
    ncclAllReduce(a.data(), b.data(), 256, ncclFloat32, ncclSum, comm, stream);
    if (rank == 0) ncclSend(a.data(), 100, ncclFloat32, 1, comm, stream);
    if (rank == 1) ncclRecv(b.data(), 100, ncclFloat32, 0, comm, stream);
  }
  if (rank == 0) ncclSend(a.data(), 100, ncclFloat32, 1, comm, stream);
  if (rank == 1) ncclRecv(b.data(), mode == "p2p-count" ? 200 : 100, ncclFloat32, 0, comm, stream);
  if (!(mode == "skip-collective" && rank == 3)) {
    ncclAllReduce(a.data(), b.data(), 256, ncclFloat32, ncclSum, comm, stream);
  }
  if (linger > 0) sleep(static_cast<unsigned>(linger));
  ncclCommDestroy(comm);
  return 0;
}
