// A program that emits NVTX the way training code does, in modes the agent tests choose:
//   nested THREADS DEPTH REPEATS   nested push/pop on named threads, plus every other NVTX call
//   stress THREADS RANGES          each thread pushes and pops RANGES ranges as fast as it can
//   ranges N [EXIT_CODE]           N ranges on the main thread, then exit(EXIT_CODE)
//   hang N                         N ranges, print "ready", then sleep until killed
//   open                           leaves open a range of every kind a push can be (short, long,
//                                  cut and page-edge text, registered, Ex, wide), closes one
//                                  from the middle of the stack, prints "ready", sleeps
//   stream                         "range 0", "range 1", ... every 200 us until killed
//   raise N SIGNAL                 N ranges, then raise(SIGNAL)
//   fork N                         N ranges "parent i", fork; the child emits N ranges "child i"
//   dormant                        ranges before, inside and after a window opened by control marks
//   steps STEPS                    STEPS steps ("step k" with two ops each); a control mark
//                                  asks for 2 steps from step 3
//   modules N                      "outer" here around N ranges of a second NVTX module
//   closefds N [DIR]               N ranges "before i", close_range(3, ~0U, 0), 16 files of its
//                                  own in DIR (kept open), then N ranges "after i"
//   none                           no NVTX at all
// It prints what it emitted on stdout ("emitted N"), so tests compare against it.
#include <dirent.h>
#include <dlfcn.h>
#include <nvtx3/nvToolsExt.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "tests/agent/control_mark.h"

namespace {

int arg(char** argv, int argc, int i, int fallback) {
  return i < argc ? std::atoi(argv[i]) : fallback;
}

void ranges(const char* prefix, int n) {
  for (int i = 0; i < n; ++i) {
    const std::string name = std::string(prefix) + " " + std::to_string(i);
    nvtxRangePushA(name.c_str());
    nvtxRangePop();
  }
}

// Thread t: "t<t> d<k> r<r>" nested DEPTH deep, REPEATS times; the innermost level also gets a
// registered-string range in domain "app", a mark, and a wide-string range.
void nestedThread(int t, int depth, int repeats, nvtxDomainHandle_t app, nvtxStringHandle_t reg) {
  nvtxNameOsThreadA(static_cast<uint32_t>(gettid()), ("worker " + std::to_string(t)).c_str());
  for (int r = 0; r < repeats; ++r) {
    for (int k = 0; k < depth; ++k) {
      nvtxRangePushA(
          ("t" + std::to_string(t) + " d" + std::to_string(k) + " r" + std::to_string(r)).c_str());
    }
    nvtxEventAttributes_t a = {};
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.colorType = NVTX_COLOR_ARGB;
    a.color = 0xFF00FF00u;
    a.category = 7;
    a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    a.message.registered = reg;
    nvtxDomainRangePushEx(app, &a);
    nvtxMarkA(("mark t" + std::to_string(t)).c_str());
    nvtxDomainRangePop(app);
    nvtxRangePushW(L"wide \u00e9t\u00e9");
    nvtxRangePop();
    for (int k = 0; k < depth; ++k) nvtxRangePop();
  }
}

int nested(int threads, int depth, int repeats) {
  nvtxDomainHandle_t app = nvtxDomainCreateA("app");
  nvtxStringHandle_t reg = nvtxDomainRegisterStringA(app, "registered op");
  nvtxNameCategoryA(7, "compute");
  // A start/end range opened here and ended on another thread.
  const nvtxRangeId_t crossing = nvtxRangeStartA("crossing");
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back(nestedThread, t, depth, repeats, app, reg);
  for (auto& th : pool) th.join();
  std::thread ender([crossing] { nvtxRangeEnd(crossing); });
  ender.join();
  std::printf("emitted %d\n", threads * repeats * (depth + 2) + 1);
  return 0;
}

int stress(int threads, int n) {
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([n] {
      for (int i = 0; i < n; ++i) {
        nvtxRangePushA("op");
        nvtxRangePop();
      }
    });
  }
  for (auto& th : pool) th.join();
  std::printf("emitted %lld\n", static_cast<long long>(threads) * n);
  return 0;
}

int forkBoth(int n) {
  ranges("parent", n);
  std::fflush(stdout);
  const pid_t child = fork();
  if (child == 0) {
    ranges("child", n);
    std::printf("child %d\n", getpid());
    std::exit(0);
  }
  ranges("parent after", n);
  int status = 0;
  waitpid(child, &status, 0);
  std::printf("parent %d\n", getpid());
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int dormant() {
  ranges("before", 5);
  controlMark("start");
  ranges("during", 5);
  controlMark("stop");
  ranges("after", 5);
  return 0;
}

// The ranges a live `hang` query must name, outermost first (tests/analyzer/hang/hang_live_test).
int openRanges() {
  nvtxRangePushA("F mb=3");                                   // short: one 16-byte load
  nvtxRangePushA("a name longer than sixteen bytes, forty");  // several loads
  // A name whose last byte is the last of its page, the next page unmapped: read without
  // touching that page.
  const long page = sysconf(_SC_PAGESIZE);
  auto* pages = static_cast<char*>(
      mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  if (pages == MAP_FAILED || mprotect(pages + page, page, PROT_NONE) != 0) return 65;
  const char edge[] = "at a page's end";
  char* atEdge = pages + page - sizeof edge;
  std::memcpy(atEdge, edge, sizeof edge);
  nvtxRangePushA(atEdge);
  nvtxDomainHandle_t app = nvtxDomainCreateA("app");
  nvtxEventAttributes_t a = {};
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  a.message.registered = nvtxDomainRegisterStringA(app, "SEND F mb=3 to=2");
  nvtxDomainRangePushEx(app, &a);
  nvtxEventAttributes_t e = {};
  e.version = NVTX_VERSION;
  e.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  e.messageType = NVTX_MESSAGE_TYPE_ASCII;
  e.message.ascii = "ex ascii";
  nvtxRangePushEx(&e);
  nvtxRangePushW(L"wide \u00e9t\u00e9");
  // 119 bytes, then a 2-byte character across the 120-byte limit: cut before it.
  nvtxRangePushA((std::string(119, 'a') + "\u00e9 and more").c_str());
  // Closed from the middle of the stack: its domain's innermost range, under another one.
  nvtxDomainHandle_t other = nvtxDomainCreateA("other");
  a.message.registered = nvtxDomainRegisterStringA(other, "closed from the middle");
  nvtxDomainRangePushEx(other, &a);
  nvtxRangePushA("above it");
  nvtxDomainRangePop(other);
  nvtxRangePushA("closed");
  nvtxRangePop();
  std::printf("ready\n");
  for (;;) pause();
}

int steps(int count) {
  controlMark("start steps=2 from=3");
  for (int s = 0; s < count; ++s) {
    nvtxRangePushA(("step " + std::to_string(s)).c_str());
    ranges(("F s" + std::to_string(s)).c_str(), 1);
    ranges(("B s" + std::to_string(s)).c_str(), 1);
    nvtxRangePop();
  }
  return 0;
}

// Closes every descriptor above stderr, the agent's trace files included, between two runs of
// ranges, as daemonising code does; then, with DIR, opens files of its own there (taking the
// descriptor numbers the agent had) and keeps them open to the end: the test checks that nobody
// else wrote to them. The pauses let the writer see the closed descriptors.
// The descriptors of this process open on a trace (*.sqlite, -wal, -shm): the agent's. With
// `paths`, also the files they are open on.
std::vector<int> traceDescriptors(std::vector<std::string>* paths = nullptr) {
  std::vector<int> out;
  DIR* fds = opendir("/proc/self/fd");
  if (fds == nullptr) return out;
  while (const dirent* e = readdir(fds)) {
    char target[4096];
    const std::string link = std::string("/proc/self/fd/") + e->d_name;
    const ssize_t len = readlink(link.c_str(), target, sizeof target - 1);
    if (len <= 0) continue;
    target[len] = '\0';
    if (std::strstr(target, ".sqlite") == nullptr) continue;
    out.push_back(std::atoi(e->d_name));
    if (paths != nullptr) paths->emplace_back(target);
  }
  closedir(fds);
  return out;
}

// Whether the agent has committed a batch holding `text` (a range name, which its trace keeps as
// plain text): SQLite writes a batch's pages to the trace's -wal file as it commits. Only the -wal
// is read: closing a descriptor of the database or its -shm would drop the agent's locks on them.
bool traceCommitted(const std::string& text) {
  std::vector<std::string> paths;
  traceDescriptors(&paths);
  for (const std::string& path : paths) {
    if (!path.ends_with("-wal")) continue;
    FILE* f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) continue;
    std::string bytes;
    char buf[65536];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) bytes.append(buf, n);
    std::fclose(f);
    if (bytes.find(text) != std::string::npos) return true;
  }
  return false;
}

int closeFds(int n, const char* dir) {
  ranges("before", n);
  // The agent opens its file with the first batch: the descriptors close once that batch is
  // committed, not while the writer is still making the file (a loaded machine ran it late, and
  // the close left it "disk I/O error" and nothing recorded). At most 10 s, then on regardless.
  const std::string last = "before " + std::to_string(n - 1);
  for (int tries = 0; !traceCommitted(last) && tries < 500; ++tries) usleep(20'000);
  // Where the agent's trace descriptors sit.
  std::vector<int> traces = traceDescriptors();
  for (int fd : traces) std::printf("trace fd %d\n", fd);
  if (close_range(3, ~0U, 0) != 0) {
    std::perror("nvtx_test_app: close_range");
    return 65;
  }
  for (int i = 0; dir != nullptr && i < 16; ++i) {
    const std::string name = std::string(dir) + "/own-" + std::to_string(i);
    FILE* f = std::fopen(name.c_str(), "w");
    if (f == nullptr || std::fprintf(f, "own file %d\n", i) < 0 || std::fflush(f) != 0) {
      std::perror("nvtx_test_app: own file");
      return 65;
    }
  }
  usleep(100'000);
  ranges("after", n);
  std::printf("emitted %d\n", 2 * n);
  return 0;
}

int modules(int n) {
  nvtxRangePushA("outer");
  void* module = dlopen(NVTX_TEST_MODULE, RTLD_NOW | RTLD_LOCAL);
  if (module == nullptr) {
    std::fprintf(stderr, "nvtx_test_app: %s\n", dlerror());
    return 65;
  }
  reinterpret_cast<void (*)(int)>(dlsym(module, "moduleRanges"))(n);
  nvtxRangePop();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "nested")
    return nested(arg(argv, argc, 2, 4), arg(argv, argc, 3, 3), arg(argv, argc, 4, 10));
  if (mode == "stress") return stress(arg(argv, argc, 2, 32), arg(argv, argc, 3, 100000));
  if (mode == "ranges") {
    ranges("range", arg(argv, argc, 2, 10));
    std::printf("emitted %d\n", arg(argv, argc, 2, 10));
    return arg(argv, argc, 3, 0);
  }
  if (mode == "hang") {
    ranges("range", arg(argv, argc, 2, 10));
    std::printf("ready\n");
    for (;;) pause();
  }
  if (mode == "stream") {
    for (long i = 0;; ++i) {
      nvtxRangePushA(("range " + std::to_string(i)).c_str());
      nvtxRangePop();
      usleep(200);
    }
  }
  if (mode == "raise") {
    ranges("range", arg(argv, argc, 2, 10));
    raise(arg(argv, argc, 3, SIGTERM));
    return 0;
  }
  if (mode == "fork") return forkBoth(arg(argv, argc, 2, 10));
  if (mode == "open") return openRanges();
  if (mode == "dormant") return dormant();
  if (mode == "steps") return steps(arg(argv, argc, 2, 8));
  if (mode == "modules") return modules(arg(argv, argc, 2, 10));
  if (mode == "closefds") return closeFds(arg(argv, argc, 2, 10), argc > 3 ? argv[3] : nullptr);
  if (mode == "none") return 0;
  std::fprintf(stderr, "nvtx_test_app: unknown mode '%s'\n", mode.c_str());
  return 64;
}
