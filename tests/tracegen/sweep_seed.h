#pragma once
// The seed a sweep draws its placements from: BUBBLESCOPE_SWEEP_SEED, else the suite's default
// (fixed, so that a run is the same run after run); 0 with a test failure when it is no number.
// And BUBBLESCOPE_SWEEP_KEEP=DIR: where a sweep keeps what each placement wrote.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <random>
#include <string>

namespace bubblescope::tracegen {

inline uint64_t sweepSeed(uint64_t defaultSeed) {
  const char* env = std::getenv("BUBBLESCOPE_SWEEP_SEED");
  if (env == nullptr || *env == '\0') return defaultSeed;
  char* end = nullptr;
  const uint64_t seed = std::strtoull(env, &end, 10);
  if (*end != '\0') {
    ADD_FAILURE() << "BUBBLESCOPE_SWEEP_SEED=" << env << " is not a number";
    return 0;
  }
  return seed;
}

// What a sweep draws for one slot at a seed: the same (seed, slot name) gives the same draws
// run after run.
class SlotDraw {
 public:
  SlotDraw(uint64_t seed, const std::string& slot)
      : rng_([&] {
          std::seed_seq seq{seed, std::hash<std::string>{}(slot)};
          return std::mt19937_64(seq);
        }()) {}
  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  double between(double lo, double hi) {
    return std::uniform_real_distribution<double>(lo, hi)(rng_);
  }
  uint64_t next() { return rng_(); }

 private:
  std::mt19937_64 rng_;
};

// With BUBBLESCOPE_SWEEP_KEEP=DIR, keeps what a placement wrote, for `bubblescope analyze`: a file
// as DIR/NAME.EXT, a directory of traces as DIR/NAME.
inline void keepIfAsked(const std::filesystem::path& written, const std::string& name) {
  namespace fs = std::filesystem;
  const char* keep = std::getenv("BUBBLESCOPE_SWEEP_KEEP");
  if (keep == nullptr || *keep == '\0') return;
  const bool dir = fs::is_directory(written);
  const fs::path to = fs::path(keep) / (dir ? name : name + written.extension().string());
  fs::remove_all(to);
  fs::create_directories(dir ? to : fs::path(keep));
  fs::copy(written, to, fs::copy_options::recursive);
  std::printf("[ sweep    ] kept in %s\n", to.c_str());
}

}  // namespace bubblescope::tracegen
