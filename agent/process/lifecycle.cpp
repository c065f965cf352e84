#include "agent/process/lifecycle.h"
#include "agent/nccl/recent_calls.h"
#include "agent/process/live_state.h"

#include <dlfcn.h>
#include <pthread.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "agent/control/control_server.h"
#include "agent/core/clock.h"
#include "agent/core/log.h"
#include "agent/core/recorder.h"
#include "agent/core/thread_state.h"
#include "agent/core/writer.h"
#include "agent/cupti/cuda_capture.h"
#include "agent/nccl/nccl_calls.h"
#include "agent/nvtx/nvtx_records.h"
#include "agent/process/config.h"
#include "agent/process/signals.h"
#include "bubblescope/version.h"

extern char** environ;

namespace bubblescope::agent {
namespace {

// No global of the agent has a destructor: the writer may run while exit() destroys statics,
// and the final flush runs after that. Objects are leaked instead.
AgentConfig& config() {
  static auto* c = new AgentConfig;
  return *c;
}

pthread_once_t g_initOnce = PTHREAD_ONCE_INIT;
pthread_once_t g_controlOnce = PTHREAD_ONCE_INIT;
bool g_isForkChild = false;
bool g_disabled = false;
int64_t g_parentPid = 0;
bool g_recorderLockedForFork = false;

std::filesystem::path currentDir() {
  std::error_code ec;
  auto cwd = std::filesystem::current_path(ec);
  return ec ? std::filesystem::path("/") : cwd;
}

// This library's own path, for NVTX_INJECTION64_PATH.
std::string ownPath() {
  Dl_info info = {};
  if (dladdr(reinterpret_cast<void*>(&initAgentOnce), &info) == 0 || info.dli_fname == nullptr) {
    return "";
  }
  std::filesystem::path p(info.dli_fname);
  if (p.is_relative()) p = currentDir() / p;
  return p.lexically_normal().string();
}

void becomeNvtxTool() {
  const std::string self = ownPath();
  if (self.empty()) return;
  const char* current = std::getenv("NVTX_INJECTION64_PATH");
  if (current == nullptr || *current == '\0') {
    // LD_PRELOAD alone is enough: NVTX reads this at its first call in each module. The
    // constructor of a preloaded library runs before main, while the process is one thread.
    setenv("NVTX_INJECTION64_PATH", self.c_str(), 1);
    return;
  }
  std::error_code ec;
  if (!std::filesystem::equivalent(current, self, ec)) {
    warnOnce(Problem::OtherNvtxTool,
             "NVTX_INJECTION64_PATH names another tool (%s): NVTX ranges go there, not to "
             "bubblescope",
             current);
  }
}

// CUDA_INJECTION64_PATH: the driver loads the agent at cuInit and starts CUPTI through it. Set
// only when unset (another tool's injection is left alone; that tool then owns CUPTI anyway).
void becomeCudaInjection() {
  const char* current = std::getenv("CUDA_INJECTION64_PATH");
  if (current != nullptr && *current != '\0') return;
  const std::string self = ownPath();
  if (!self.empty()) setenv("CUDA_INJECTION64_PATH", self.c_str(), 1);
}

// Built when the writer starts, on the thread whose event started it: the environment is read
// there, late enough for launchers that set RANK at run time.
FileSetup buildFileSetup() {
  FileSetup s;
  const Environment env = relevantEnvironment(environ);
  const Identity id = identityFromEnvironment(env);
  const int64_t pid = getpid();
  s.dir = config().outputDir;
  s.ownerOnly = config().privateFiles;
  s.meta.source = "bubblescope-agent";
  s.meta.runId = config().runId;
  s.meta.pid = pid;
  s.meta.agentVersion = BUBBLESCOPE_VERSION;
  const CudaCaptureState cuda = cudaCaptureState();
  s.meta.cudaCapture = cuda.active;
  s.meta.cudaNote = cuda.note;
  s.meta.extra = extraFromEnvironment(env);
  s.meta.localRank = id.localRank;
  s.meta.worldSize = id.worldSize;
  if (g_isForkChild) {
    // The rank variables describe the parent: a forked child must not claim its rank.
    s.meta.rank = -1;
    s.meta.extra["parent_pid"] = std::to_string(g_parentPid);
    s.meta.extra["parent_rank"] = std::to_string(id.rank);
    s.fileName = traceFileName(-1, pid);
  } else {
    s.meta.rank = id.rank;
    if (id.rank >= 0) s.meta.extra["rank_variable"] = id.rankVariable;
    s.fileName = traceFileName(id.rank, pid);
    s.fallbackName = "rank-" + std::to_string(id.rank) + ".pid-" + std::to_string(pid) + ".sqlite";
    if (id.rank < 0) s.fallbackName.clear();
  }
  s.warnings = id.warnings;
  s.warnings.insert(s.warnings.end(), config().warnings.begin(), config().warnings.end());
  return s;
}

void onWriterStarted() {
  installFlushOnSignals();
}

void onWindowOpened() {
  ensureWriter();
  wakeWriter();  // a window that switches kind mid-run: the writer follows at once
}

void prepareFork() {
  g_recorderLockedForFork = Recorder::instance().lockForFork();
  writerPrepareFork();
}

void parentAfterFork() {
  writerParentAfterFork();
  if (g_recorderLockedForFork) Recorder::instance().unlockInParent();
}

void childAfterFork() {
  g_isForkChild = true;
  g_parentPid = getppid();
  resetThreadStatesInForkChild();
  forgetRecentCalls();
  controlServerChildAfterFork();
  if (g_recorderLockedForFork) {
    Recorder::instance().resetInChild();
  } else {
    Recorder::instance().disable();
  }
  writerChildAfterFork();
}

std::string commandLine() {
  std::string text;
  if (FILE* f = std::fopen("/proc/self/cmdline", "re")) {
    char buf[256];
    const size_t n = std::fread(buf, 1, sizeof buf, f);
    std::fclose(f);
    text.assign(buf, n);
  }
  while (!text.empty() && text.back() == '\0') text.pop_back();
  for (char& c : text) c = c == '\0' ? ' ' : c;
  return text;
}

// BUBBLESCOPE_CONTROL=0 turns the control socket off; identity as the writer will see it.
void startControl() {
  if (g_disabled || g_isForkChild) return;  // a forked child has no socket (docs/agent.md)
  if (!config().controlSocket) return;
  const Environment env = relevantEnvironment(environ);
  const Identity id = identityFromEnvironment(env);
  ControlIdentity c;
  c.pid = getpid();
  c.rank = id.rank;
  c.localRank = id.localRank;
  c.worldSize = id.worldSize;
  c.runId = config().runId;
  c.command = commandLine();
  c.outputDir = config().outputDir.string();
  c.expectedFile = traceFileName(id.rank, c.pid);
  c.env = extraFromEnvironment(env);
  initLiveState();
  startControlServer(c, control::dirEnvironmentFromProcess(), &gatherLiveSnapshot);
}

void init() {
  config() = configFromEnvironment(relevantEnvironment(environ), currentDir());
  g_disabled = config().disabled;
  if (g_disabled) return;
  selectTicks(config().useTsc);
  configureThreadBuffers(config().ringBytes, config().maxRings);
  registerNvtxRecords();
  registerNcclRecords();
  configureCudaCapture(config().cudaRequested, config().cudaNote);
  WriterOptions options;
  options.setup = &buildFileSetup;
  options.started = &onWriterStarted;
  options.startAnchor = readTickAnchor();
  configureWriter(options);
  Recorder& recorder = Recorder::instance();
  recorder.setWindowOpenedHook(&onWindowOpened);
  // Nobody can ask a process without a control socket where it waits: no stacks kept then.
  recorder.trackOpenOps(config().openOps && config().controlSocket);
  recorder.begin(!config().dormant, "record");
  pthread_atfork(&prepareFork, &parentAfterFork, &childAfterFork);
  becomeNvtxTool();
  if (config().cudaRequested) becomeCudaInjection();
}

}  // namespace

void initAgentOnce() {
  pthread_once(&g_initOnce, &init);
}

bool agentDisabled() {
  return g_disabled;
}

void onHooksInstalled() {
  pthread_once(&g_controlOnce, &startControl);
}

}  // namespace bubblescope::agent

// Runs when the library is loaded (LD_PRELOAD: before main) and when the process exits (after
// the program's own atexit handlers and static destructors).
__attribute__((constructor)) static void bubblescopeAgentLoad() {
  bubblescope::agent::initAgentOnce();
}

__attribute__((destructor)) static void bubblescopeAgentUnload() {
  if (!bubblescope::agent::agentDisabled()) {
    // First the socket, so no client finds a process that is going away; a request already
    // taken is refused as the process exiting.
    bubblescope::agent::Recorder::instance().markExiting();
    bubblescope::agent::stopControlServer();
    bubblescope::agent::finishWriter(bubblescope::agent::kExitFlushMs);
  }
}
