// Writes the comm-heavy torch-style job of issue 29 as PyTorch's profiler (Kineto) writes it: an
// 8-stage 1F1B pipeline, m = 256, 20 steps, NCCL send/recv kernels that wait for their peers, one
// JSON per rank (8 files, about 1.2 M events). For timing `bubblescope analyze DIR` in each
// format against Python's json.load of the same files (docs/benchmarks.md).
//   kineto_job DIR [STEPS [P M [DP]]]   (P stages, M microbatches, DP replicas: issue 31's
//   many-rank job; ranks replica * P + stage)
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include "tests/tracegen/execution.h"
#include "tests/tracegen/kineto_stack.h"

int main(int argc, char** argv) {
  using namespace bubblescope::tracegen;
  if (argc < 2) {
    std::cerr << "usage: kineto_job DIR [STEPS [P M [DP]]]\n";
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  JobSpec s;
  s.p = argc > 4 ? std::stoi(argv[3]) : 8;
  s.m = argc > 4 ? std::stoi(argv[4]) : 256;
  s.steps = argc > 2 ? std::stoi(argv[2]) : 20;
  s.dp = argc > 5 ? std::stoi(argv[5]) : 1;
  const int64_t skews[] = {0, 430'000, -270'000, 910'000, 120'000, -640'000, 55'000, 300'000};
  for (int r = 0; r < worldSize(s); ++r) s.clockSkew.push_back(skews[r % 8]);
  s.jitter = 0.05;
  s.slowLinks.push_back({3, 4, 400'000});
  const JobTimeline job = execute(s);
  KinetoOptions o;
  o.base = s.start - 2'000'000'000;  // torch 2.x: relative to a base a little earlier
  std::filesystem::create_directories(dir);
  for (int r = 0; r < worldSize(s); ++r) {
    std::ofstream(dir / ("rank" + std::to_string(r) + ".pt.trace.json"))
        << kinetoRankJson(job, r, o);
  }
  return 0;
}
