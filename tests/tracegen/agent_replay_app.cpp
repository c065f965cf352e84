// One rank of a generated pipeline job, replayed through the entry points the capture agent
// hooks, on a machine without a GPU: NVTX ranges, NCCL calls into the fake libnccl.so.2
// (fake_nccl.cpp), CUDA launches and synchronisations into the fake libcupti (fake_cupti.cpp)
// that the preloaded agent loaded. The host side runs in real time (each action waits for its
// time); the kernels carry the generator's device times, so the trace holds its exact GPU
// timeline. A kernel NCCL launches is made in the fake's launch hook, inside the NCCL call (or
// its group's ncclGroupEnd), so it joins the call through the agent's external correlation id.
//
// CLOCK: `machine` leaves the clocks alone (the agent reads its TSC, as in a real job: host
// timestamps are when the machine got round to each action); `replay` makes CLOCK_REALTIME the
// replay's own from the rank's start (replay_clock.h; run the agent with
// BUBBLESCOPE_CLOCK=realtime), so every host timestamp, and the agent's CUPTI clock anchors, are
// the plan's whatever the machine's load.
//
//   agent_replay_app launch PLAN_DIR FAKE_CUPTI CLOCK
//       as torchrun: one rank per PLAN_DIR/rank-N.plan, started together (replay_launcher.h);
//       fails if any rank failed
//   agent_replay_app rank PLAN_FILE READY_FD GO_FD FAKE_CUPTI CLOCK
//       one rank, as the launcher starts it: its plan's times are ns after the origin it gets
#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>
#include <dlfcn.h>
#include <nccl.h>
#include <nvtx3/nvToolsExt.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/agent/fake_cupti.h"
#include "tests/agent/fake_nccl.h"
#include "tests/tracegen/replay_clock.h"
#include "tests/tracegen/replay_launcher.h"
#include "tests/tracegen/replay_plan.h"

namespace {

using bubblescope::TimeNs;
using namespace bubblescope::tracegen;

constexpr uint32_t kCudaLaunchKernel = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
constexpr uint32_t kCudaStreamSynchronize = CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020;
constexpr uint32_t kCudaDeviceSynchronize = CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020;
constexpr uint32_t kCuLaunchKernelEx = CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx;

void sleepUntil(TimeNs ns) {
  timespec ts{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
  while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
  }
}

// ---- One rank ----

// torch's autograd engine's device thread: it makes the launches handed to it, one at a time,
// while the main thread waits (as the main thread waits in backward()). A real thread, so the
// agent sees the launch on another thread than the range around it.
class AutogradThread {
 public:
  template <class Launch>
  explicit AutogradThread(Launch launch)
      : thread_([this, launch] {
          std::unique_lock lock(mutex_);
          for (;;) {
            wake_.wait(lock, [this] { return pending_ != nullptr || stop_; });
            if (pending_ == nullptr) return;
            launch(*pending_);
            pending_ = nullptr;
            done_.notify_one();
          }
        }) {}
  ~AutogradThread() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }
  void launch(const ReplayAction& a) {
    std::unique_lock lock(mutex_);
    pending_ = &a;
    wake_.notify_one();
    done_.wait(lock, [this] { return pending_ == nullptr; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const ReplayAction* pending_ = nullptr;
  bool stop_ = false;
  std::thread thread_;  // last: it starts once the rest is ready
};

struct Replay {
  const ReplayPlan* plan = nullptr;
  AutogradThread* autograd = nullptr;
  TimeNs origin = 0;
  FakeCuptiLaunchKernelFn launchKernel = nullptr;
  FakeCuptiBlockingCallFn blockingCall = nullptr;
  FakeCuptiMemoryFn memory = nullptr;
  std::vector<ncclComm_t> comms;
  const ReplayAction* launching = nullptr;  // the NCCL call whose kernel is due
  std::vector<std::string> errors;
};

void fail(Replay& r, const ReplayAction& a, const std::string& what) {
  r.errors.push_back(std::string(verbName(a.verb)) + " at " + std::to_string(a.at) + ": " + what);
}

FakeCuptiKernel cuptiKernel(const Replay& r, const char* name, const ReplayKernel& k, uint32_t cbid,
                            bool driver) {
  return FakeCuptiKernel{name,
                         static_cast<uint64_t>(r.origin + k.start),
                         static_cast<uint64_t>(r.origin + k.end),
                         r.plan->device,
                         k.stream,
                         cbid,
                         driver ? 1 : 0};
}

void launch(Replay& r, const ReplayAction& a) {
  const FakeCuptiKernel k = cuptiKernel(r, a.text.c_str(), *a.kernel, kCudaLaunchKernel, false);
  if (r.launchKernel(&k) == 0) fail(r, a, "CUPTI recorded nothing of the launch");
}

// NCCL launches through the driver (cuLaunchKernelEx), on the calling thread, inside the call.
void onNcclLaunch(void* context, const char* kernel, cudaStream_t) {
  auto& r = *static_cast<Replay*>(context);
  const ReplayAction* a = r.launching;
  r.launching = nullptr;
  if (a == nullptr || !a->kernel) {
    r.errors.push_back(std::string("NCCL launched ") + kernel + " where the plan has no kernel");
    return;
  }
  const FakeCuptiKernel k = cuptiKernel(r, kernel, *a->kernel, kCuLaunchKernelEx, true);
  if (r.launchKernel(&k) == 0) fail(r, *a, "CUPTI recorded nothing of the launch");
}

// An NCCL call, and the kernel it must have launched if the plan says it launches one.
void nccl(Replay& r, const ReplayAction& a,
          ncclResult_t (*call)(const Replay&, const ReplayAction&)) {
  r.launching = &a;
  const ncclResult_t result = call(r, a);
  if (result != ncclSuccess) fail(r, a, std::string("NCCL said ") + ncclGetErrorString(result));
  if (r.launching != nullptr && a.kernel) fail(r, a, "NCCL launched no kernel");
  r.launching = nullptr;
}

uint32_t syncCbid(const std::string& name) {
  return name == "cudaDeviceSynchronize" ? kCudaDeviceSynchronize : kCudaStreamSynchronize;
}

cudaStream_t stream(const ReplayAction& a) {
  return reinterpret_cast<cudaStream_t>(a.stream);
}

void perform(Replay& r, const ReplayAction& a) {
  switch (a.verb) {
    case ReplayVerb::Push:
      nvtxRangePushA(a.text.c_str());
      return;
    case ReplayVerb::Pop:
      nvtxRangePop();
      return;
    case ReplayVerb::Launch:
      launch(r, a);
      return;
    case ReplayVerb::AutogradLaunch:
      r.autograd->launch(a);
      return;
    case ReplayVerb::Send:
      nccl(r, a, [](const Replay& s, const ReplayAction& x) {
        return ncclSend(nullptr, x.count, ncclBfloat16, x.peer, s.comms[x.comm], stream(x));
      });
      return;
    case ReplayVerb::Recv:
      nccl(r, a, [](const Replay& s, const ReplayAction& x) {
        return ncclRecv(nullptr, x.count, ncclBfloat16, x.peer, s.comms[x.comm], stream(x));
      });
      return;
    case ReplayVerb::GroupStart:
      nccl(r, a, [](const Replay&, const ReplayAction&) { return ncclGroupStart(); });
      return;
    case ReplayVerb::GroupEnd:
      nccl(r, a, [](const Replay&, const ReplayAction&) { return ncclGroupEnd(); });
      return;
    case ReplayVerb::AllReduce:
      nccl(r, a, [](const Replay& s, const ReplayAction& x) {
        return ncclAllReduce(nullptr, nullptr, x.count, ncclFloat32, ncclSum, s.comms[x.comm],
                             stream(x));
      });
      return;
    case ReplayVerb::Malloc:
    case ReplayVerb::Free:
      // The allocator's call, at its planned time as CUPTI would stamp it.
      if (r.memory(a.stream, a.count, a.verb == ReplayVerb::Malloc ? 1 : 0, r.plan->device,
                   static_cast<uint64_t>(r.origin + a.at)) == 0) {
        fail(r, a, "CUPTI recorded nothing of the call");
      }
      return;
    case ReplayVerb::Sync:
      if (r.blockingCall(syncCbid(a.text), static_cast<uint64_t>(r.origin + a.until)) == 0) {
        fail(r, a, "CUPTI recorded nothing of the call");
      }
      return;
  }
}

// The unique id every member derives from the communicator's name.
ncclUniqueId uniqueId(const std::string& name) {
  ncclUniqueId id;
  uint64_t h = 1469598103934665603ull;
  for (char c : name) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  for (size_t i = 0; i < sizeof id.internal; ++i) {
    h = (h ^ i) * 1099511628211ull;
    id.internal[i] = static_cast<char>(h >> 56);
  }
  return id;
}

std::string readAll(const char* path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

int runRank(const char* planFile, int readyFd, int goFd, const char* fakeCupti, bool replayClock) {
  // On the replay's clock from the start, held at the machine's time until the origin: the
  // agent's CUPTI clock anchors (at cuInit and when its window opens, maybe before the origin)
  // are then read on the clock the host times come from. Read on the machine's, a loaded machine
  // left them 16 ns off (the CLOCK_MONOTONIC read between), which put a launch outside its 3 ns
  // NCCL call.
  if (replayClock) startReplayClock(machineRealtimeNs());
  // Wake-ups within microseconds of each action's time, not the default 50 µs slack.
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  // Kernel names in CUPTI's records are read by the agent's writer until the process is gone:
  // the plan is never freed.
  auto* plan = new ReplayPlan;
  try {
    *plan = parsePlan(readAll(planFile));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "agent_replay_app: %s: %s\n", planFile, e.what());
    return 2;
  }
  // What the CUDA driver does at cuInit with the agent as its injection library.
  auto initializeInjection =
      reinterpret_cast<int (*)()>(dlsym(RTLD_DEFAULT, "InitializeInjection"));
  if (initializeInjection == nullptr) {
    std::fprintf(stderr, "agent_replay_app: the agent is not preloaded\n");
    return 3;
  }
  initializeInjection();
  void* cupti = dlopen(fakeCupti, RTLD_NOW | RTLD_NOLOAD);
  auto* r = new Replay;
  r->plan = plan;
  if (cupti != nullptr) {
    r->launchKernel =
        reinterpret_cast<FakeCuptiLaunchKernelFn>(dlsym(cupti, "fakeCuptiLaunchKernel"));
    r->blockingCall =
        reinterpret_cast<FakeCuptiBlockingCallFn>(dlsym(cupti, "fakeCuptiBlockingCall"));
    r->memory = reinterpret_cast<FakeCuptiMemoryFn>(dlsym(cupti, "fakeCuptiMemory"));
  }
  auto describeDevice = cupti != nullptr
                            ? reinterpret_cast<FakeCuptiDeviceFn>(dlsym(cupti, "fakeCuptiDevice"))
                            : nullptr;
  if (r->launchKernel == nullptr || r->blockingCall == nullptr || r->memory == nullptr ||
      describeDevice == nullptr) {
    std::fprintf(stderr, "agent_replay_app: the agent did not load %s\n", fakeCupti);
    return 4;
  }
  // CUPTI describes each device as its context is made (CUPTI_ACTIVITY_KIND_DEVICE).
  if (plan->deviceMemory > 0) {
    describeDevice(plan->device, "NVIDIA H100 80GB HBM3", plan->deviceMemory);
  }
  for (const ReplayComm& c : plan->comms) {
    ncclComm_t comm = nullptr;
    if (ncclCommInitRank(&comm, c.size, uniqueId(c.name), c.rank) != ncclSuccess) {
      std::fprintf(stderr, "agent_replay_app: cannot make communicator %s\n", c.name.c_str());
      return 5;
    }
    r->comms.push_back(comm);
  }
  fakeNcclSetLaunchHook(&onNcclLaunch, r);
  AutogradThread autograd([r](const ReplayAction& a) { launch(*r, a); });
  r->autograd = &autograd;
  const TimeNs origin = readyForOrigin(readyFd, goFd);
  if (origin < 0) {
    std::fprintf(stderr, "agent_replay_app: rank %d: the launcher is gone\n", plan->rank);
    return 7;
  }
  r->origin = origin;
  if (!plan->actions.empty() && machineRealtimeNs() > origin + plan->actions.front().at) {
    std::fprintf(
        stderr, "agent_replay_app: rank %d started %.1f ms after its first action\n", plan->rank,
        static_cast<double>(machineRealtimeNs() - origin - plan->actions.front().at) / 1e6);
  }
  if (replayClock && !plan->actions.empty())
    startReplayClock(origin + plan->actions.front().at - 1'000);
  for (const ReplayAction& a : plan->actions) {
    sleepUntil(origin + a.at);
    if (replayClock) advanceReplayClock(origin + a.at);
    perform(*r, a);
    // The host was blocked until the GPU got there: its clock went on meanwhile.
    if (replayClock && a.verb == ReplayVerb::Sync) advanceReplayClock(origin + a.until);
  }
  fakeNcclSetLaunchHook(nullptr, nullptr);
  for (const std::string& e : r->errors)
    std::fprintf(stderr, "agent_replay_app: rank %d: %s\n", plan->rank, e.c_str());
  return r->errors.empty() ? 0 : 6;
}

// ---- The launcher ----

std::vector<std::string> planFiles(const std::string& dir) {
  std::vector<std::string> files;
  for (int rank = 0;; ++rank) {
    const std::string f = dir + "/rank-" + std::to_string(rank) + ".plan";
    if (access(f.c_str(), R_OK) != 0) break;
    files.push_back(f);
  }
  return files;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  const std::string clock = argc > 1 ? argv[argc - 1] : "";
  if (clock == "machine" || clock == "replay") {
    if (mode == "launch" && argc == 5) {
      char self[4096] = {};
      const std::vector<std::string> plans = planFiles(argv[2]);
      if (readlink("/proc/self/exe", self, sizeof self - 1) <= 0 || plans.empty()) {
        std::fprintf(stderr, "agent_replay_app: no rank-0.plan in %s\n", argv[2]);
        return 2;
      }
      return launchRanks(self, plans, {argv[3], clock});
    }
    if (mode == "rank" && argc == 7) {
      return runRank(argv[2], std::atoi(argv[3]), std::atoi(argv[4]), argv[5], clock == "replay");
    }
  }
  std::fprintf(stderr,
               "usage: agent_replay_app launch PLAN_DIR FAKE_CUPTI machine|replay\n"
               "       agent_replay_app rank PLAN_FILE READY_FD GO_FD FAKE_CUPTI machine|replay\n");
  return 2;
}
