// From which step on a pruned memory window holds every step whole (agent/core/step_starts.h).
#include "agent/core/step_starts.h"

#include <gtest/gtest.h>

namespace bubblescope::agent {
namespace {

TEST(StepStarts, TheStepAfterTheNewestCutOne) {
  StepStarts s;
  for (int64_t k = 0; k < 10; ++k) s.note(k, 1000 + 100 * k);  // step k began at 1000 + 100k
  EXPECT_EQ(s.wholeFrom(1350), 4);  // step 3 began at 1300, before; step 4 at 1400
  EXPECT_EQ(s.wholeFrom(1400), 4);  // a step that began exactly there is held
  EXPECT_EQ(s.wholeFrom(1401), 5);
}

TEST(StepStarts, UnknownWhenNothingKeptWasCutOrNothingBeganSince) {
  StepStarts s;
  EXPECT_EQ(s.wholeFrom(0), -1);  // no step seen
  for (int64_t k = 0; k < 10; ++k) s.note(k, 1000 + 100 * k);
  // Every step kept began after: older ones, not kept, may have been cut or not.
  EXPECT_EQ(s.wholeFrom(500), -1);
  // The newest step began before: none is whole yet.
  EXPECT_EQ(s.wholeFrom(5000), -1);
}

TEST(StepStarts, KeepsTheLast64AndFollowsACounterThatJumps) {
  StepStarts s;
  for (int64_t k = 0; k < 200; ++k) s.note(k, 100 * k);
  // Steps 136-199 are kept: a cut among them is known, one before them is not.
  EXPECT_EQ(s.wholeFrom(100 * 150 + 1), 151);
  EXPECT_EQ(s.wholeFrom(100 * 136), -1);
  EXPECT_EQ(s.wholeFrom(100 * 136 + 1), 137);
  StepStarts jumps;
  jumps.note(7, 100);
  jumps.note(12, 200);  // a job that counts steps by 5s, or one whose ranges were missed
  EXPECT_EQ(jumps.wholeFrom(150), 12);
}

}  // namespace
}  // namespace bubblescope::agent
