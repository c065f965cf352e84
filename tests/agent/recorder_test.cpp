// Capture windows: dormant until asked; N steps counted at "step N" ranges; durations; marks.
#include "agent/core/recorder.h"

#include <gtest/gtest.h>

#include "agent/core/clock.h"
#include "agent/nvtx/control_marks.h"
#include "agent/nvtx/step_name.h"

namespace bubblescope::agent {
namespace {

TEST(AgentStepName, ParsesTheConvention) {
  EXPECT_EQ(parseStepName("step 0"), 0);
  EXPECT_EQ(parseStepName("step 12"), 12);
  EXPECT_EQ(parseStepName("step 12 warmup"), 12);
  EXPECT_EQ(parseStepName("step"), -1);
  EXPECT_EQ(parseStepName("step "), -1);
  EXPECT_EQ(parseStepName("step x"), -1);
  EXPECT_EQ(parseStepName("stepper 3"), -1);
  EXPECT_EQ(parseStepName("F mb=3"), -1);
  EXPECT_EQ(parseStepName("step 99999999999999999999"), -1);
}

TEST(AgentRecorder, DormantRecordsNothingUntilAWindowOpens) {
  Recorder r;
  r.begin(false, "record");
  EXPECT_FALSE(isRecording(controlWord()));
  EXPECT_TRUE(r.windows().empty());
  WindowRequest req;
  req.reason = "test";
  ASSERT_TRUE(r.request(req));
  EXPECT_TRUE(isRecording(controlWord()));
  ASSERT_EQ(r.windows().size(), 1u);
  EXPECT_EQ(r.windows()[0].reason, "test");
  EXPECT_EQ(r.windows()[0].endNs, 0);
  std::string why;
  EXPECT_FALSE(r.request(req, &why));
  EXPECT_EQ(why, "already recording");
  r.stop();
  EXPECT_FALSE(isRecording(controlWord()));
  EXPECT_GT(r.windows()[0].endNs, r.windows()[0].startNs);
}

TEST(AgentRecorder, EachWindowStartsANewGeneration) {
  Recorder r;
  r.begin(true, "record");
  const uint32_t first = generationOf(controlWord());
  r.stop();
  EXPECT_EQ(generationOf(controlWord()), first);  // ranges open at the stop still close
  ASSERT_TRUE(r.request(WindowRequest{}));
  EXPECT_EQ(generationOf(controlWord()), first + 1);
}

TEST(AgentRecorder, StepWindowStartsAtTheNextStepAndCountsSteps) {
  Recorder r;
  r.begin(false, "record");
  WindowRequest req;
  req.steps = 2;
  ASSERT_TRUE(r.request(req));
  EXPECT_FALSE(isRecording(controlWord()));
  EXPECT_TRUE(stepsWatched(controlWord()));
  r.onStepBoundary(5);
  EXPECT_TRUE(isRecording(controlWord()));
  r.onStepBoundary(6);
  EXPECT_TRUE(isRecording(controlWord()));
  r.onStepBoundary(7);
  EXPECT_FALSE(isRecording(controlWord()));
  EXPECT_FALSE(stepsWatched(controlWord()));  // nothing left to count
  ASSERT_EQ(r.windows().size(), 1u);
  EXPECT_NE(r.windows()[0].endNs, 0);
}

TEST(AgentRecorder, StepWindowFromAGivenStep) {
  Recorder r;
  r.begin(false, "record");
  WindowRequest req;
  req.steps = 1;
  req.fromStep = 10;
  ASSERT_TRUE(r.request(req));
  r.onStepBoundary(8);
  r.onStepBoundary(9);
  EXPECT_FALSE(isRecording(controlWord()));
  r.onStepBoundary(10);
  EXPECT_TRUE(isRecording(controlWord()));
  r.onStepBoundary(11);
  EXPECT_FALSE(isRecording(controlWord()));
}

TEST(AgentRecorder, DurationWindowEndsOnTheWriterTick) {
  Recorder r;
  r.begin(false, "record");
  WindowRequest req;
  req.durationNs = 1'000'000;
  ASSERT_TRUE(r.request(req));
  const int64_t start = r.windows()[0].startNs;
  r.tick(start + 500'000);
  EXPECT_TRUE(isRecording(controlWord()));
  r.tick(start + 1'000'000);
  EXPECT_FALSE(isRecording(controlWord()));
  EXPECT_EQ(r.windows()[0].endNs, start + 1'000'000);
}

// The hook runs when a window is armed or opens, after the recorder's lock is released: it may
// read the recorder (CUDA capture's hook calls into CUPTI, whose callbacks do).
Recorder* g_hooked = nullptr;
int g_hookCalls = 0;
size_t g_windowsSeenByHook = 0;
void countOpen() {
  ++g_hookCalls;
  g_windowsSeenByHook = g_hooked->windows().size();
}

TEST(AgentRecorder, CaptureWantedHookRunsWhenAWindowIsArmedOrOpens) {
  Recorder r;
  g_hooked = &r;
  g_hookCalls = 0;
  r.setCaptureWantedHook(&countOpen);
  r.begin(false, "record");
  EXPECT_EQ(g_hookCalls, 0);
  WindowRequest now;
  ASSERT_TRUE(r.request(now));
  EXPECT_EQ(g_hookCalls, 1);
  EXPECT_EQ(g_windowsSeenByHook, 1u);
  EXPECT_FALSE(r.request(now));  // refused: no new window
  r.stop();
  EXPECT_EQ(g_hookCalls, 1);
  EXPECT_FALSE(r.captureWanted());
  WindowRequest steps;
  steps.steps = 2;
  ASSERT_TRUE(r.request(steps));
  EXPECT_EQ(g_hookCalls, 2);  // armed: capture is wanted before the window opens
  EXPECT_TRUE(r.captureWanted());
  r.onStepBoundary(7);
  EXPECT_EQ(g_hookCalls, 3);  // and it opened
  r.onStepBoundary(8);
  r.onStepBoundary(9);  // closes it
  EXPECT_EQ(g_hookCalls, 3);
  EXPECT_FALSE(r.captureWanted());
  Recorder recording;
  g_hooked = &recording;
  recording.setCaptureWantedHook(&countOpen);
  recording.begin(true, "record");
  EXPECT_EQ(g_hookCalls, 4);
  g_hooked = nullptr;
}

TEST(AgentRecorder, DisabledForGoodRefusesWindows) {
  Recorder r;
  r.begin(true, "record");
  r.disable();
  EXPECT_FALSE(isRecording(controlWord()));
  EXPECT_TRUE(r.disabled());
  std::string why;
  EXPECT_FALSE(r.request(WindowRequest{}, &why));
  EXPECT_NE(r.windows()[0].endNs, 0);
}

TEST(AgentRecorder, TrackingStepsCountsThemWithoutRecording) {
  Recorder r;
  r.begin(false, "record");
  r.trackSteps(true);
  EXPECT_TRUE(stepsWatched(controlWord()));
  r.onStepBoundary(41);
  EXPECT_EQ(r.currentStep(), 41);
  EXPECT_FALSE(isRecording(controlWord()));
  r.trackSteps(false);
  EXPECT_FALSE(stepsWatched(controlWord()));
}

constexpr int64_t kSecond = 1'000'000'000;

TEST(AgentRecorder, MemoryWindowRecordsUntilItsLeaseRunsOut) {
  Recorder r;
  r.begin(false, "record");
  const int64_t t = 1'000 * kSecond;
  ASSERT_TRUE(r.watch(2 * kSecond, t));
  EXPECT_TRUE(isRecording(controlWord()));
  ASSERT_EQ(r.windows().size(), 1u);
  EXPECT_TRUE(r.windows()[0].memory);
  EXPECT_EQ(r.windows()[0].reason, "watch");
  EXPECT_FALSE(r.hadFileWindow());  // nothing may make a file of what it records
  MemoryWindowState m = r.memoryWindow();
  EXPECT_TRUE(m.open);
  EXPECT_EQ(m.index, 0);
  EXPECT_EQ(m.keepNs, 2 * kSecond);
  EXPECT_EQ(m.leaseEndNs, t + 10 * kSecond);  // max(2 x keep, 10 s)

  // A snapshot renews the lease; without one it lapses and the process is dormant again.
  r.tick(t + 9 * kSecond);
  EXPECT_TRUE(r.renewWatch(t + 9 * kSecond));
  r.tick(t + 18 * kSecond);
  EXPECT_TRUE(isRecording(controlWord()));
  const uint32_t generation = generationOf(controlWord());
  r.tick(t + 19 * kSecond);
  EXPECT_FALSE(isRecording(controlWord()));
  EXPECT_FALSE(r.memoryWindow().open);
  EXPECT_EQ(r.windows()[0].endNs, t + 19 * kSecond);
  // Ranges it opened are forgotten when they close: none reaches a file later.
  EXPECT_EQ(generationOf(controlWord()), generation + 1);
  EXPECT_NE(r.watchEndReason().find("lease ran out"), std::string::npos) << r.watchEndReason();
  EXPECT_FALSE(r.renewWatch(t + 20 * kSecond));
}

TEST(AgentRecorder, WatchRenewsTheOpenMemoryWindowWithItsNewKeep) {
  Recorder r;
  r.begin(false, "record");
  const int64_t t = 1'000 * kSecond;
  ASSERT_TRUE(r.watch(5 * kSecond, t));
  ASSERT_TRUE(r.watch(30 * kSecond, t + kSecond));
  EXPECT_EQ(r.windows().size(), 1u);
  EXPECT_EQ(r.memoryWindow().keepNs, 30 * kSecond);
  EXPECT_EQ(r.memoryWindow().leaseEndNs, t + 61 * kSecond);  // 2 x 30 s from the renewal
}

TEST(AgentRecorder, WatchGoesBesideAFileWindowWithoutAWindowOfItsOwn) {
  Recorder r;
  r.begin(true, "record");
  const int64_t t = 1'000 * kSecond;
  ASSERT_TRUE(r.watch(2 * kSecond, t));
  const MemoryWindowState m = r.memoryWindow();
  EXPECT_TRUE(m.open);
  EXPECT_TRUE(m.besideFile);
  EXPECT_EQ(m.index, -1);
  EXPECT_EQ(m.leaseEndNs, t + 10 * kSecond);
  // The file's window list is the file's: no memory window in it.
  ASSERT_EQ(r.windows().size(), 1u);
  EXPECT_FALSE(r.windows()[0].memory);
  EXPECT_EQ(r.windows()[0].endNs, 0);
  // Its lease runs out as a memory window's does; the file window goes on.
  r.tick(t + 11 * kSecond);
  EXPECT_FALSE(r.memoryWindow().open);
  EXPECT_NE(r.watchEndReason().find("lease ran out"), std::string::npos) << r.watchEndReason();
  EXPECT_TRUE(isRecording(controlWord()));
  EXPECT_EQ(r.windows().size(), 1u);
  r.disable();
  std::string why;
  EXPECT_FALSE(r.watch(kSecond, t, &why));
  EXPECT_EQ(why, "capture is off in this process");
}

TEST(AgentRecorder, AFileWindowTakesOverFromTheMemoryWindowAndTheWatchGoesOn) {
  Recorder r;
  r.begin(false, "record");
  ASSERT_TRUE(r.watch(kSecond, realtimeNs()));
  const int64_t serial = r.memoryWindow().serial;
  WindowRequest attach;
  attach.reason = "attach duration=5";
  attach.durationNs = 5 * kSecond;
  ASSERT_TRUE(r.request(attach));
  const MemoryWindowState m = r.memoryWindow();
  EXPECT_TRUE(m.open);
  EXPECT_TRUE(m.besideFile);
  EXPECT_NE(m.serial, serial);  // its trace starts afresh, following the file
  EXPECT_TRUE(isRecording(controlWord()));
  EXPECT_TRUE(r.hadFileWindow());
  ASSERT_EQ(r.windows().size(), 2u);
  EXPECT_NE(r.windows()[0].endNs, 0);
  EXPECT_FALSE(r.windows()[1].memory);
  EXPECT_TRUE(r.watchEndReason().empty());
}

TEST(AgentRecorder, AFileWindowThatEndsUnderAWatchHandsItBackToMemory) {
  Recorder r;
  r.begin(false, "record");
  r.trackSteps(true);
  ASSERT_TRUE(r.watch(kSecond, realtimeNs()));
  WindowRequest steps;
  steps.steps = 2;
  steps.reason = "attach steps=2";
  ASSERT_TRUE(r.request(steps));  // armed: the memory window records on until the step
  EXPECT_TRUE(isRecording(controlWord()));
  EXPECT_FALSE(r.memoryWindow().besideFile);
  EXPECT_EQ(r.memoryWindow().index, 0);
  r.onStepBoundary(7);
  EXPECT_TRUE(r.memoryWindow().besideFile);
  ASSERT_EQ(r.windows().size(), 2u);
  EXPECT_EQ(r.windows()[1].reason, "attach steps=2");
  r.onStepBoundary(8);
  r.onStepBoundary(9);  // the window's two steps are over
  ASSERT_EQ(r.windows().size(), 3u);
  EXPECT_NE(r.windows()[1].endNs, 0);
  EXPECT_TRUE(r.windows()[2].memory);
  const MemoryWindowState m = r.memoryWindow();
  EXPECT_TRUE(m.open);
  EXPECT_FALSE(m.besideFile);
  EXPECT_EQ(m.index, 2);
  EXPECT_TRUE(isRecording(controlWord()));
}

TEST(AgentRecorder, StopEndsTheFileWindowFirstThenTheWatch) {
  Recorder r;
  r.begin(true, "record");
  ASSERT_TRUE(r.watch(kSecond, realtimeNs()));
  r.stop();  // the file window: the watch goes on, in memory
  EXPECT_TRUE(r.memoryWindow().open);
  EXPECT_FALSE(r.memoryWindow().besideFile);
  ASSERT_EQ(r.windows().size(), 2u);
  EXPECT_TRUE(r.windows()[1].memory);
  r.stop();
  EXPECT_FALSE(r.memoryWindow().open);
  EXPECT_FALSE(isRecording(controlWord()));
  EXPECT_EQ(r.watchEndReason(), "a stop request ended it");
}

TEST(AgentRecorder, StopEndsTheMemoryWindow) {
  Recorder r;
  r.begin(false, "record");
  ASSERT_TRUE(r.watch(kSecond, realtimeNs()));
  r.stop();
  EXPECT_FALSE(isRecording(controlWord()));
  EXPECT_FALSE(r.memoryWindow().open);
  EXPECT_EQ(r.watchEndReason(), "a stop request ended it");
}

TEST(AgentRecorder, AForkedChildDoesNotInheritAMemoryWindow) {
  Recorder r;
  r.begin(false, "record");
  ASSERT_TRUE(r.watch(kSecond, realtimeNs()));
  ASSERT_TRUE(r.lockForFork());
  r.resetInChild();  // as in the child: nobody could read its memory window there
  EXPECT_FALSE(isRecording(controlWord()));
  EXPECT_FALSE(r.memoryWindow().open);
  EXPECT_TRUE(r.windows().empty());
  EXPECT_FALSE(r.hadFileWindow());
}

TEST(AgentControlMarks, ParsesStartAndStop) {
  ControlCommand c;
  std::string error;
  ASSERT_TRUE(parseControlMessage("start", &c, &error));
  EXPECT_EQ(c.kind, ControlCommand::Kind::Start);
  EXPECT_EQ(c.request.steps, 0);
  ASSERT_TRUE(parseControlMessage("start steps=2 from=3", &c, &error));
  EXPECT_EQ(c.request.steps, 2);
  EXPECT_EQ(c.request.fromStep, 3);
  ASSERT_TRUE(parseControlMessage("start duration=0.5", &c, &error));
  EXPECT_EQ(c.request.durationNs, 500'000'000);
  // A duration from an agreed step, as `attach --duration` asks over the socket.
  ASSERT_TRUE(parseControlMessage("start duration=0.5 from=4", &c, &error));
  EXPECT_EQ(c.request.fromStep, 4);
  EXPECT_TRUE(c.request.atStepBoundary);
  ASSERT_TRUE(parseControlMessage("stop", &c, &error));
  EXPECT_EQ(c.kind, ControlCommand::Kind::Stop);
}

TEST(AgentControlMarks, RefusesWhatItDoesNotKnow) {
  ControlCommand c;
  std::string error;
  for (const char* bad :
       {"", "begin", "start steps=0", "start steps=x", "start from=3", "start duration=-1",
        "stop now", "start color=red", "start steps=2 duration=1", "start duration=1e30", "status",
        "watch", "watch keep=2", "snapshot"}) {
    EXPECT_FALSE(parseControlMessage(bad, &c, &error)) << bad;
    EXPECT_FALSE(error.empty());
  }
}

}  // namespace
}  // namespace bubblescope::agent
