// What the agent answers on its control socket, against a recorder of the test's own: status,
// windows started and stopped through the recorder, refusals.
#include "agent/control/control_handler.h"

#include <gtest/gtest.h>

namespace bubblescope::agent {
namespace {

ControlIdentity identity() {
  ControlIdentity id;
  id.pid = 4242;
  id.rank = 3;
  id.localRank = 1;
  id.worldSize = 8;
  id.runId = "run-1";
  id.command = "python train.py --lr 0.1";
  id.outputDir = "/out";
  id.expectedFile = "rank-00003.sqlite";
  return id;
}

struct Fixture {
  Recorder recorder;
  ControlHandler handler{recorder, identity()};
  Fixture() { recorder.begin(false, "record"); }
  control::Reply ask(const std::string& line, int64_t nowNs = 0) {
    return handler.handle(line, nowNs);
  }
};

TEST(ControlHandler, StatusSaysWhoAndWhere) {
  Fixture f;
  const control::Reply r = f.ask("status");
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.integer("protocol", 0), control::kProtocolVersion);
  EXPECT_EQ(r.integer("pid", 0), 4242);
  EXPECT_EQ(r.integer("rank", 0), 3);
  EXPECT_EQ(r.integer("local_rank", 0), 1);
  EXPECT_EQ(r.integer("world_size", 0), 8);
  EXPECT_EQ(r.text("run_id"), "run-1");
  EXPECT_EQ(r.text("command"), "python train.py --lr 0.1");
  EXPECT_EQ(r.text("state"), "dormant");
  EXPECT_EQ(r.integer("step", 0), -1);
  EXPECT_EQ(r.text("window"), "none");
  EXPECT_EQ(r.text("file"), "/out/rank-00003.sqlite");
  EXPECT_EQ(r.text("file_written"), "0");
  EXPECT_EQ(r.find("step_ns"), nullptr);
}

TEST(ControlHandler, StatusFollowsTheStepCounterAndItsRate) {
  Fixture f;
  f.recorder.trackSteps(true);
  f.recorder.onStepBoundary(10);
  f.handler.tick(0);
  f.recorder.onStepBoundary(11);
  f.handler.tick(100'000'000);
  f.recorder.onStepBoundary(12);
  const control::Reply r = f.ask("status", 300'000'000);
  EXPECT_EQ(r.integer("step", -1), 12);
  EXPECT_EQ(r.integer("step_ns", -1), 200'000'000);
  EXPECT_EQ(r.integer("step_age_ns", -1), 0);
}

TEST(ControlHandler, StartStepsArmsAWindowThatOpensAtTheAgreedStep) {
  Fixture f;
  f.recorder.trackSteps(true);
  f.recorder.onStepBoundary(5);
  const control::Reply r = f.ask("start steps=2 from=7");
  ASSERT_TRUE(r.ok) << r.text("message");
  EXPECT_EQ(r.text("window"), "armed");
  EXPECT_EQ(r.integer("window_index", -1), 0);
  EXPECT_EQ(r.integer("step", -1), 5);
  EXPECT_EQ(r.find("late"), nullptr);
  EXPECT_EQ(f.ask("status").text("state"), "armed");

  f.recorder.onStepBoundary(6);
  EXPECT_FALSE(isRecording(controlWord()));
  f.recorder.onStepBoundary(7);
  EXPECT_TRUE(isRecording(controlWord()));
  const control::Reply open = f.ask("status");
  EXPECT_EQ(open.text("state"), "recording");
  EXPECT_EQ(open.text("window"), "open");
  EXPECT_EQ(open.text("window_reason"), "attach steps=2 from=7");
  f.recorder.onStepBoundary(8);
  f.recorder.onStepBoundary(9);
  const control::Reply closed = f.ask("status");
  EXPECT_EQ(closed.text("state"), "dormant");
  EXPECT_EQ(closed.text("window"), "closed");
  EXPECT_EQ(closed.integer("window_index", -1), 0);
  EXPECT_GE(closed.integer("window_end", 0), closed.integer("window_start", 1));
}

TEST(ControlHandler, StartTooLateSaysSo) {
  Fixture f;
  f.recorder.trackSteps(true);
  f.recorder.onStepBoundary(9);
  const control::Reply r = f.ask("start steps=1 from=9");
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.text("late"), "1");
  EXPECT_EQ(r.integer("step", -1), 9);
}

TEST(ControlHandler, StartDurationOpensNowOrAtTheAgreedStep) {
  Fixture f;
  const control::Reply now = f.ask("start duration=5");
  ASSERT_TRUE(now.ok);
  EXPECT_EQ(now.text("window"), "open");
  EXPECT_TRUE(isRecording(controlWord()));
  EXPECT_EQ(f.recorder.windows().back().reason, "attach duration=5");
  f.ask("stop");

  f.recorder.trackSteps(true);
  const control::Reply atStep = f.ask("start duration=5 from=3");
  EXPECT_EQ(atStep.text("window"), "armed");
  EXPECT_EQ(atStep.integer("window_index", -1), 1);
  f.recorder.onStepBoundary(3);
  EXPECT_TRUE(isRecording(controlWord()));
}

TEST(ControlHandler, StopClosesTheWindowOrCancelsTheArmedOne) {
  Fixture f;
  EXPECT_EQ(f.ask("stop").text("stopped"), "nothing");
  f.ask("start duration=60");
  const control::Reply stopped = f.ask("stop");
  EXPECT_EQ(stopped.text("stopped"), "window");
  EXPECT_FALSE(isRecording(controlWord()));
  EXPECT_NE(f.recorder.windows().back().endNs, 0);

  f.recorder.trackSteps(true);
  f.ask("start steps=2");
  EXPECT_EQ(f.ask("stop").text("stopped"), "armed");
  f.recorder.onStepBoundary(1);
  EXPECT_FALSE(isRecording(controlWord()));
  EXPECT_EQ(f.ask("status").text("state"), "dormant");
}

TEST(ControlHandler, RefusesASecondWindowAndBadRequests) {
  Fixture f;
  ASSERT_TRUE(f.ask("start duration=60").ok);
  const control::Reply again = f.ask("start steps=2");
  EXPECT_FALSE(again.ok);
  EXPECT_EQ(again.text("message"), "already recording");
  const control::Reply bad = f.ask("start steps=two");
  EXPECT_FALSE(bad.ok);
  EXPECT_NE(bad.text("message").find("bad argument"), std::string::npos);
  f.recorder.disable();
  const control::Reply off = f.ask("start steps=2");
  EXPECT_FALSE(off.ok);
  EXPECT_EQ(off.text("message"), "capture is off in this process");
  EXPECT_EQ(f.ask("status").text("state"), "off");
}

// The writer's side of a snapshot, as the test wants it; with g_stepDuringImage, a step begins
// on g_recorder while the image is taken.
MemorySnapshot g_image;
int g_imageCalls = 0;
int g_flushes = 0;
Recorder* g_recorder = nullptr;
int64_t g_stepDuringImage = -1;
MemorySnapshot fakeImage(int, uint64_t) {
  ++g_imageCalls;
  if (g_recorder != nullptr && g_stepDuringImage >= 0)
    g_recorder->onStepBoundary(g_stepDuringImage);
  return g_image;
}
bool fakeFlush(int) {
  ++g_flushes;
  return true;
}

struct WatchFixture : Fixture {
  WatchFixture() {
    handler.setMemoryImageSource(&fakeImage);
    handler.setWriterFlush(&fakeFlush);
    g_image = MemorySnapshot();
    g_imageCalls = 0;
    g_flushes = 0;
    g_recorder = &recorder;
    g_stepDuringImage = -1;
  }
  ~WatchFixture() { g_recorder = nullptr; }
  control::Reply snapshot(std::string* payload) { return handler.handle("snapshot", 0, payload); }
};

TEST(ControlHandler, WatchStartsAMemoryWindowAndStatusSaysWatching) {
  WatchFixture f;
  const control::Reply r = f.ask("watch keep=2");
  ASSERT_TRUE(r.ok) << r.text("message");
  EXPECT_EQ(r.text("state"), "watching");
  EXPECT_EQ(r.text("keep"), "2");
  EXPECT_EQ(r.text("renewed"), "0");
  EXPECT_EQ(r.integer("lease_ns", 0), 10'000'000'000);
  EXPECT_EQ(r.integer("pid", 0), 4242);  // status's fields too
  EXPECT_EQ(r.text("window_reason"), "watch");
  EXPECT_TRUE(isRecording(controlWord()));
  EXPECT_EQ(g_flushes, 0);  // no file window before it: nothing to hand to a file
  const control::Reply again = f.ask("watch");
  EXPECT_EQ(again.text("renewed"), "1");
  EXPECT_EQ(again.text("keep"), "5");  // the default
  EXPECT_EQ(f.recorder.windows().size(), 1u);
  EXPECT_EQ(f.ask("status").text("state"), "watching");
  EXPECT_EQ(f.ask("stop").text("stopped"), "watch");
  EXPECT_EQ(f.ask("status").text("state"), "dormant");
}

TEST(ControlHandler, SnapshotSendsTheImageAndRenewsTheLease) {
  WatchFixture f;
  f.recorder.trackSteps(true);
  f.recorder.onStepBoundary(41);
  ASSERT_TRUE(f.ask("watch keep=1").ok);
  const int64_t leaseBefore = f.recorder.memoryWindow().leaseEndNs;
  g_image.ok = true;
  g_image.image = std::string("SQLite format 3\0", 16) + std::string(4080, 'x');
  g_image.nowNs = 1'700'000'000'000'000'000;
  g_image.heldFromNs = 1'699'999'999'000'000'000;
  g_image.windowStartNs = 1'699'999'990'000'000'000;
  std::string payload;
  const control::Reply r = f.snapshot(&payload);
  ASSERT_TRUE(r.ok) << r.text("message");
  EXPECT_EQ(r.integer("bytes", 0), 4096);
  EXPECT_EQ(payload.size(), 4096u);
  EXPECT_EQ(payload.substr(0, 6), "SQLite");
  EXPECT_EQ(r.integer("step", -1), 41);
  EXPECT_EQ(r.integer("now_ns", 0), g_image.nowNs);
  EXPECT_EQ(r.integer("held_from_ns", 0), g_image.heldFromNs);
  EXPECT_EQ(r.integer("window_start", 0), g_image.windowStartNs);
  EXPECT_EQ(r.text("keep"), "1");
  EXPECT_EQ(r.integer("rank", -1), 3);
  EXPECT_GE(f.recorder.memoryWindow().leaseEndNs, leaseBefore);

  // The writer's failure is the reply's message.
  g_image = MemorySnapshot();
  g_image.error = "the writer was busy for 1500 ms";
  payload.clear();
  const control::Reply busy = f.snapshot(&payload);
  EXPECT_FALSE(busy.ok);
  EXPECT_EQ(busy.text("message"), "the writer was busy for 1500 ms");
  EXPECT_TRUE(payload.empty());
}

// The step a snapshot names is the one running when its image was taken: a step that begins
// while the image is made is not in it, and a watch would read the step before it as held.
TEST(ControlHandler, SnapshotNamesTheStepItsImageWasTakenIn) {
  WatchFixture f;
  f.recorder.trackSteps(true);
  f.recorder.onStepBoundary(146);
  ASSERT_TRUE(f.ask("watch keep=1").ok);
  g_image.ok = true;
  g_image.image = std::string("SQLite format 3\0", 16);
  g_stepDuringImage = 147;
  std::string payload;
  const control::Reply r = f.snapshot(&payload);
  ASSERT_TRUE(r.ok) << r.text("message");
  EXPECT_EQ(r.integer("step", -1), 146);
  EXPECT_EQ(f.recorder.currentStep(), 147);
}

// A snapshot taken just as the process began to exit (the agent's unload marks it, then turns
// capture off): refused as the process exiting, which clients read as gone, not as a watch that
// ended. What still succeeds is answered as before.
TEST(ControlHandler, ARefusalAsTheProcessExitsSaysItIsExiting) {
  WatchFixture f;
  ASSERT_TRUE(f.ask("watch keep=1").ok);
  f.recorder.markExiting();
  f.recorder.disable();
  std::string payload;
  const control::Reply r = f.snapshot(&payload);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.text("message"), control::kExitingMessage);
  EXPECT_EQ(f.ask("watch").text("message"), control::kExitingMessage);
  EXPECT_TRUE(f.ask("status").ok);
  // Before the mark, the same refusal says what ended the window.
  WatchFixture g;
  ASSERT_TRUE(g.ask("watch keep=1").ok);
  g.recorder.disable();
  EXPECT_NE(g.snapshot(&payload).text("message").find("capture is off"), std::string::npos);
}

TEST(ControlHandler, SnapshotWithoutWatchIsRefusedAndSaysWhyTheLastOneEnded) {
  WatchFixture f;
  std::string payload;
  const control::Reply none = f.snapshot(&payload);
  EXPECT_FALSE(none.ok);
  EXPECT_EQ(none.text("message"), "no memory window: send watch first");
  EXPECT_EQ(g_imageCalls, 0);
  ASSERT_TRUE(f.ask("watch").ok);
  ASSERT_TRUE(f.ask("stop").ok);
  const control::Reply ended = f.snapshot(&payload);
  EXPECT_FALSE(ended.ok);
  EXPECT_EQ(ended.text("message"),
            "no memory window: send watch first (the last one ended: a stop request ended it)");
  // Without a place for its bytes, a snapshot is refused rather than sent as a bare line.
  EXPECT_FALSE(f.ask("snapshot").ok);
}

TEST(ControlHandler, AFileWindowAskedForWhileWatchingLeavesTheWatchOn) {
  WatchFixture f;
  ASSERT_TRUE(f.ask("watch").ok);
  ASSERT_TRUE(f.ask("start duration=5").ok);  // a file window takes over from the memory one
  EXPECT_GE(g_flushes, 2);  // what the memory window held went to it, then the writer switched
  EXPECT_EQ(f.ask("status").text("state"), "recording");
  EXPECT_TRUE(f.recorder.memoryWindow().besideFile);
  g_image.ok = true;
  g_image.image = std::string("SQLite format 3\0", 16);
  std::string payload;
  EXPECT_TRUE(f.snapshot(&payload).ok);
  // Stop ends the file window first; the watch goes on in memory until a second stop.
  EXPECT_EQ(f.ask("stop").text("stopped"), "window");
  EXPECT_EQ(f.ask("status").text("state"), "watching");
  EXPECT_EQ(f.ask("stop").text("stopped"), "watch");
  EXPECT_EQ(f.ask("status").text("state"), "dormant");
}

TEST(ControlHandler, WatchBesideAFileWindowIsAcceptedAndStatusSaysRecording) {
  WatchFixture f;
  ASSERT_TRUE(f.ask("start duration=60").ok);
  const control::Reply r = f.ask("watch keep=2");
  ASSERT_TRUE(r.ok) << r.text("message");
  EXPECT_EQ(r.text("state"), "recording");  // attach refuses it as any recording process
  EXPECT_EQ(r.text("keep"), "2");
  EXPECT_EQ(r.text("file"), "/out/rank-00003.sqlite");
  EXPECT_TRUE(f.recorder.memoryWindow().open);
  EXPECT_TRUE(f.recorder.memoryWindow().besideFile);
  EXPECT_EQ(f.recorder.windows().size(), 1u);
}

}  // namespace
}  // namespace bubblescope::agent
