// A program for the attach tests:
//   steps STEPS MS [EXIT_CODE]   STEPS steps ("step k" around a "work" range of MS ms), then exit
//   fork-hold                    one range, fork; parent and child print "parent PID" and
//                                "child PID", emit a range each, and sleep (up to 60 s) until
//                                killed
#include <nvtx3/nvToolsExt.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

namespace {

void range(const std::string& name) {
  nvtxRangePushA(name.c_str());
  nvtxRangePop();
}

int steps(int count, int ms, int code) {
  for (int k = 0; k < count; ++k) {
    nvtxRangePushA(("step " + std::to_string(k)).c_str());
    nvtxRangePushA("work");
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    nvtxRangePop();
    nvtxRangePop();
  }
  return code;
}

int forkHold() {
  range("before fork");  // the agent's control socket starts at the first NVTX call
  const pid_t child = fork();
  if (child < 0) return 1;
  std::printf("%s %d\n", child == 0 ? "child" : "parent", static_cast<int>(getpid()));
  std::fflush(stdout);
  range(child == 0 ? "child" : "parent");
  std::this_thread::sleep_for(std::chrono::seconds(60));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "steps" && argc > 3) {
    return steps(std::atoi(argv[2]), std::atoi(argv[3]), argc > 4 ? std::atoi(argv[4]) : 0);
  }
  if (mode == "fork-hold") return forkHold();
  std::fprintf(stderr, "usage: attach_test_app steps STEPS MS [EXIT_CODE] | fork-hold\n");
  return 2;
}
