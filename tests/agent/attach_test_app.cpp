// A program for the attach tests:
//   steps STEPS MS [EXIT_CODE]   STEPS steps ("step k" around a "work" range of MS ms), then exit
//   ops STEPS MB MS [STOP_FILE]  STEPS steps of MB microbatches, each an "F mb=i" then a
//                                "B mb=i" of MS ms with a "RECV B mb=i from=1" between, as a
//                                pipeline stage names its ops; ends early (exit 0) once
//                                STOP_FILE exists
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

int ops(int count, int microbatches, int ms, const char* stopFile) {
  const auto op = [&](const std::string& name, int length) {
    nvtxRangePushA(name.c_str());
    std::this_thread::sleep_for(std::chrono::milliseconds(length));
    nvtxRangePop();
  };
  for (int k = 0; k < count && (stopFile == nullptr || access(stopFile, F_OK) != 0); ++k) {
    nvtxRangePushA(("step " + std::to_string(k)).c_str());
    for (int mb = 0; mb < microbatches; ++mb) {
      const std::string m = " mb=" + std::to_string(mb);
      op("F" + m, ms);
      op("RECV B" + m + " from=1", ms / 2);
      op("B" + m, ms);
    }
    nvtxRangePop();
  }
  return 0;
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
  if (mode == "ops" && argc > 4) {
    return ops(std::atoi(argv[2]), std::atoi(argv[3]), std::atoi(argv[4]),
               argc > 5 ? argv[5] : nullptr);
  }
  if (mode == "fork-hold") return forkHold();
  std::fprintf(stderr,
               "usage: attach_test_app steps STEPS MS [EXIT_CODE] | ops STEPS MB MS [STOP_FILE] | "
               "fork-hold\n");
  return 2;
}
