#pragma once
// The seed a sweep draws its placements from: BUBBLESCOPE_SWEEP_SEED, else the suite's default
// (fixed, so that a run is the same run after run); 0 with a test failure when it is no number.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>

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

}  // namespace bubblescope::tracegen
