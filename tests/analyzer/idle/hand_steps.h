#pragma once
// Steps of two-stage pipelines written out by hand (times in ms), whose idle and blame the idle
// tests work out on paper. Op costs: F 2 ms, BW 4 ms unless a scenario says otherwise; inputs
// arrive when their producer ends (no transfer time) unless a receive says otherwise.
#include "tests/analyzer/hand_pipeline.h"

namespace bubblescope::testing {

inline constexpr Op kF0{OpKind::F, 0, 0}, kF1{OpKind::F, 1, 0};
inline constexpr Op kBW0{OpKind::BW, 0, 0}, kBW1{OpKind::BW, 1, 0};

// GPipe, 2 microbatches; stage 1 is twice as slow (F 4, BW 8). Ideal costs: F 3, BW 6.
//   stage 0: F0 0-2, F1 2-4,                               BW0 18-22,  BW1 26-30
//   stage 1:         F0 2-6, F1 6-10, BW0 10-18, BW1 18-26
inline HandPipeline slowSecondStage() {
  HandPipeline h(2);
  h.op(0, kF0, 0, 2 * kMs).op(0, kF1, 2 * kMs, 4 * kMs);
  h.op(0, kBW0, 18 * kMs, 22 * kMs).op(0, kBW1, 26 * kMs, 30 * kMs);
  h.op(1, kF0, 2 * kMs, 6 * kMs).op(1, kF1, 6 * kMs, 10 * kMs);
  h.op(1, kBW0, 10 * kMs, 18 * kMs).op(1, kBW1, 18 * kMs, 26 * kMs);
  return h;
}

// GPipe, 2 microbatches, balanced; stage 1 launches F1 at 7 ms though its input was there at 4
// (with `hostBusy`, the host ran something else 4-7 ms).
//   stage 0: F0 0-2, F1 2-4,                               BW0 13-17, BW1 17-21
//   stage 1:         F0 2-4,  ...  F1 7-9, BW0 9-13, BW1 13-17
inline HandPipeline lateLaunchOnSecondStage(bool hostBusy) {
  HandPipeline h(2);
  h.op(0, kF0, 0, 2 * kMs).op(0, kF1, 2 * kMs, 4 * kMs);
  h.op(0, kBW0, 13 * kMs, 17 * kMs).op(0, kBW1, 17 * kMs, 21 * kMs);
  h.op(1, kF0, 2 * kMs, 4 * kMs).op(1, kF1, 7 * kMs, 9 * kMs);
  h.op(1, kBW0, 9 * kMs, 13 * kMs).op(1, kBW1, 13 * kMs, 17 * kMs);
  if (hostBusy) h.host(1, 4 * kMs, 7 * kMs);
  return h;
}

// GPipe, 2 microbatches, balanced; the activations of F1 reach stage 1 at 7 ms although F1 ended
// on stage 0 at 4 (stage 1 waits in its receive 4-7 ms).
//   stage 0: F0 0-2, F1 2-4,                                BW0 13-17, BW1 17-21
//   stage 1:         F0 2-4, RECV 4-7, F1 7-9, BW0 9-13, BW1 13-17
inline HandPipeline lateActivationsToSecondStage() {
  HandPipeline h(2);
  h.op(0, kF0, 0, 2 * kMs).op(0, kF1, 2 * kMs, 4 * kMs);
  h.op(0, kBW0, 13 * kMs, 17 * kMs).op(0, kBW1, 17 * kMs, 21 * kMs);
  h.op(1, kF0, 2 * kMs, 4 * kMs).recv(1, OpKind::F, 1, 0, 4 * kMs, 7 * kMs);
  h.op(1, kF1, 7 * kMs, 9 * kMs);
  h.op(1, kBW0, 9 * kMs, 13 * kMs).op(1, kBW1, 13 * kMs, 17 * kMs);
  return h;
}

// Balanced, fault-free, but stage 0 runs one microbatch at a time (F0 BW0 F1 BW1), so stage 1
// idles mid-step, between its first backward and its last forward, as the ideal run does too.
//   stage 0: F0 0-2,                BW0 8-12, F1 12-14,                 BW1 20-24
//   stage 1:         F0 2-4, BW0 4-8,                   F1 14-16, BW1 16-20
inline HandPipeline oneMicrobatchAtATime() {
  HandPipeline h(2);
  h.op(0, kF0, 0, 2 * kMs).op(0, kBW0, 8 * kMs, 12 * kMs);
  h.op(0, kF1, 12 * kMs, 14 * kMs).op(0, kBW1, 20 * kMs, 24 * kMs);
  h.op(1, kF0, 2 * kMs, 4 * kMs).op(1, kBW0, 4 * kMs, 8 * kMs);
  h.op(1, kF1, 14 * kMs, 16 * kMs).op(1, kBW1, 16 * kMs, 20 * kMs);
  return h;
}

}  // namespace bubblescope::testing
