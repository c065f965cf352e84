// The agent's side of `bubblescope watch` against a real process under `bubblescope record
// --dormant`: a memory window started over the control socket, snapshots that read back as rank
// traces holding only the last seconds, no file ever written for it, the lease that ends it when
// nobody asks, and the refusals; and beside a file window (plain `record`, or an attach): the
// watch goes on and the file holds every op. Each test has a runtime directory of its own.
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "agent/control/client.h"
#include "tests/agent/agent_test_support.h"
#include "tests/agent/background_process.h"
#include "tests/support/temp_dir.h"
#include "traces/sqlite/sqlite_db.h"
#include "traces/sqlite/trace_reader.h"

namespace bubblescope::testing {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr auto kReady = seconds(60);  // for the process to show up (a loaded machine)
constexpr auto kAsk = milliseconds(5000);
constexpr int64_t kSecond = 1'000'000'000;

// A process naming its ops as a pipeline stage does (F, RECV B, B per microbatch, 12.5 ms per
// microbatch), dormant under `record` (or recording to a file), until the test writes its stop
// file.
class WatchedJob {
 public:
  explicit WatchedJob(bool dormant = true) {
    fs::create_directories(tmp_ / "logs");
    ProcessOptions o = cleanEnv({{"BUBBLESCOPE_RUNTIME_DIR", runtimeDir().string()}});
    o.unsetEnv.push_back("XDG_RUNTIME_DIR");
    o.timeout = seconds(120);
    std::vector<std::string> argv = {
        BUBBLESCOPE_BIN, "record", "-o", run().string(),          "--", ATTACH_TEST_APP, "ops",
        "20000",         "4",      "5",  (tmp_ / "stop").string()};
    if (dormant) argv.insert(argv.begin() + 2, "--dormant");
    job_ = std::make_unique<BackgroundProcess>(argv, o, tmp_ / "logs");
  }

  fs::path run() const { return tmp_ / "run"; }
  fs::path runtimeDir() const { return tmp_ / "rt"; }
  BackgroundProcess& job() { return *job_; }

  // The process's socket, once it answers with a step.
  bool ready() {
    return eventually(
        [&] {
          const auto found = control::discoverAgents(
              control::DirEnvironment{runtimeDir().string(), ""}, geteuid());
          if (found.targets.size() != 1) return false;
          target_ = found.targets[0];
          return ask("status").integer("step", -1) >= 0;
        },
        kReady);
  }

  control::Reply ask(const std::string& line) {
    const auto e = control::exchangeAll({target_}, {line + "\n"}, kAsk);
    return e[0].reply;
  }

  // A snapshot read back as the watcher reads it: deserialized into memory, then the reader.
  struct Snapshot {
    control::Reply reply;
    traces::RankTrace trace;
  };
  Snapshot snapshot() {
    Snapshot s;
    std::string error;
    const auto image =
        control::fetchSnapshot(target_, control::kSnapshotClientTimeout, &s.reply, &error);
    EXPECT_TRUE(image.has_value()) << error;
    if (!image) return s;
    EXPECT_EQ(static_cast<int64_t>(image->size()), s.reply.integer("bytes", -1));
    traces::sqlite::Database db = traces::sqlite::Database::fromBytes(*image);
    s.trace = traces::readRankTrace(db, "snapshot");
    return s;
  }

  // Ends the job's loop; its exit code.
  int finish() {
    std::ofstream(tmp_ / "stop") << "stop\n";
    return job_->wait(seconds(60));
  }

 private:
  TempDir tmp_{"bubblescope-watch"};
  std::unique_ptr<BackgroundProcess> job_;
  control::Target target_;
};

size_t rangesNamed(const traces::RankTrace& t, const std::string& prefix) {
  size_t n = 0;
  for (traces::StringId id : t.ranges->name) n += t.strings.at(id).rfind(prefix, 0) == 0 ? 1 : 0;
  return n;
}

// The start of the range named exactly `name`; -1 if the trace holds none.
int64_t startOf(const traces::RankTrace& t, const std::string& name) {
  for (size_t i = 0; i < t.ranges->size(); ++i) {
    if (t.strings.at(t.ranges->name[i]) == name) return t.ranges->start[i];
  }
  return -1;
}

int64_t earliestEnd(const traces::RankTrace& t) {
  return *std::min_element(t.ranges->end.begin(), t.ranges->end.end());
}
int64_t latestEnd(const traces::RankTrace& t) {
  return *std::max_element(t.ranges->end.begin(), t.ranges->end.end());
}

TEST(AgentWatch, SnapshotsHoldTheLastSecondsOfOpsAndNoFileIsWritten) {
  WatchedJob j;
  ASSERT_TRUE(j.ready()) << j.job().err();
  const control::Reply w = j.ask("watch keep=2");
  ASSERT_TRUE(w.ok) << w.text("message");
  EXPECT_EQ(w.text("state"), "watching");
  EXPECT_EQ(w.text("keep"), "2");
  EXPECT_EQ(w.integer("lease_ns", 0), 10 * kSecond);

  // Long enough for the first seconds to have been pruned.
  std::this_thread::sleep_for(milliseconds(3000));
  const auto first = j.snapshot();
  ASSERT_TRUE(first.reply.ok);
  ASSERT_GT(first.trace.ranges->size(), 50u);
  EXPECT_GT(rangesNamed(first.trace, "F mb="), 10u);
  EXPECT_GT(rangesNamed(first.trace, "RECV B mb="), 10u);
  EXPECT_GT(rangesNamed(first.trace, "step "), 5u);
  ASSERT_EQ(first.trace.meta.captureWindows.size(), 1u);
  EXPECT_EQ(first.trace.meta.captureWindows[0].reason, "watch");
  EXPECT_GT(first.trace.meta.pid, 0);
  EXPECT_GE(first.reply.integer("step", -1), 0);
  // Nothing older than keep and a prune cycle (plus what a loaded machine adds), and what it
  // says it holds is true.
  const int64_t now1 = first.reply.integer("now_ns", 0);
  const int64_t held1 = first.reply.integer("held_from_ns", 0);
  EXPECT_GE(held1, now1 - 2 * kSecond - 700'000'000) << "pruned too little";
  EXPECT_GE(earliestEnd(first.trace), held1);
  EXPECT_GE(earliestEnd(first.trace), now1 - 2 * kSecond - 700'000'000);
  EXPECT_LE(latestEnd(first.trace), now1);
  EXPECT_GT(latestEnd(first.trace), now1 - 500'000'000) << "the newest events are missing";
  // From which step on it holds every step whole: that step's start is held, the one before it
  // began before what is held (its range, if still there, began earlier).
  const int64_t whole = first.reply.integer("whole_from_step", -1);
  ASSERT_GT(whole, 0) << "steps were pruned: the agent knows where whole steps begin";
  EXPECT_GE(startOf(first.trace, "step " + std::to_string(whole)), held1);
  EXPECT_LT(startOf(first.trace, "step " + std::to_string(whole - 1)), held1);
  EXPECT_LE(whole, first.reply.integer("step", -1));

  std::this_thread::sleep_for(milliseconds(1000));
  const auto second = j.snapshot();
  ASSERT_TRUE(second.reply.ok);
  ASSERT_GT(second.trace.ranges->size(), 50u);
  EXPECT_GT(latestEnd(second.trace), latestEnd(first.trace) + 500'000'000);
  EXPECT_GT(earliestEnd(second.trace), earliestEnd(first.trace));
  EXPECT_GE(earliestEnd(second.trace),
            second.reply.integer("now_ns", 0) - 2 * kSecond - 700'000'000);
  EXPECT_EQ(j.ask("status").text("state"), "watching");
  EXPECT_TRUE(traceFiles(j.run()).empty()) << "a memory window wrote a file";

  // Nobody asks any more: after the lease (10 s from the last snapshot) the process is dormant
  // again and says why when asked.
  EXPECT_TRUE(eventually([&] { return j.ask("status").text("state") == "dormant"; }, seconds(30)));
  const control::Reply lapsed = j.ask("snapshot");
  EXPECT_FALSE(lapsed.ok);
  EXPECT_NE(lapsed.text("message").find("lease ran out"), std::string::npos)
      << lapsed.text("message");

  EXPECT_EQ(j.finish(), 0) << j.job().err();
  EXPECT_TRUE(traceFiles(j.run()).empty()) << "a memory window wrote a file";
  // No warning from the agent; `record` says there is no trace.
  const std::string err = j.job().err();
  EXPECT_EQ(err.find("memory window"), std::string::npos) << err;
  EXPECT_NE(err.find("nothing was recorded"), std::string::npos) << err;
}

TEST(AgentWatch, SnapshotWithoutWatchIsRefused) {
  WatchedJob j;
  ASSERT_TRUE(j.ready()) << j.job().err();
  const control::Reply none = j.ask("snapshot");
  EXPECT_FALSE(none.ok);
  EXPECT_EQ(none.text("message"), "no memory window: send watch first");
  EXPECT_FALSE(none.find("bytes"));
  EXPECT_EQ(j.finish(), 0) << j.job().err();
}

// Every op of a trace file: each step holds its 4 microbatches' F, RECV B and B, and the steps
// run 0, 1, 2, ... with none lost or written twice. (Ops after the last whole step, one the window
// ended in, are not counted.)
void expectEveryOp(const traces::RankTrace& file) {
  struct Step {
    int64_t number, start, end;
  };
  std::vector<Step> steps;
  for (size_t i = 0; i < file.ranges->size(); ++i) {
    const std::string name(file.strings.at(file.ranges->name[i]));
    if (name.rfind("step ", 0) == 0) {
      steps.push_back({std::stoll(name.substr(5)), file.ranges->start[i], file.ranges->end[i]});
    }
  }
  std::sort(steps.begin(), steps.end(), [](auto& a, auto& b) { return a.number < b.number; });
  ASSERT_GT(steps.size(), 10u);
  for (size_t k = 0; k < steps.size(); ++k) {
    EXPECT_EQ(steps[k].number, static_cast<int64_t>(k));
    for (const char* op : {"F mb=", "RECV B mb=", "B mb="}) {
      size_t n = 0;
      for (size_t i = 0; i < file.ranges->size(); ++i) {
        n += file.ranges->start[i] >= steps[k].start && file.ranges->end[i] <= steps[k].end &&
             file.strings.at(file.ranges->name[i]).rfind(op, 0) == 0;
      }
      EXPECT_EQ(n, 4u) << "step " << k << " " << op;
    }
  }
}

// Plain `record`: the process records to a file from its start, and a watch goes beside it. The
// snapshots read the newest seconds of what the file gets; the file holds every op all the same.
TEST(AgentWatch, AProcessRecordingToAFileIsWatchedAndItsFileHoldsEveryOp) {
  WatchedJob j(false);
  ASSERT_TRUE(j.ready()) << j.job().err();
  EXPECT_EQ(j.ask("status").text("state"), "recording");
  const control::Reply w = j.ask("watch keep=1");
  ASSERT_TRUE(w.ok) << w.text("message");
  EXPECT_EQ(w.text("state"), "recording");
  EXPECT_EQ(w.text("keep"), "1");
  std::this_thread::sleep_for(milliseconds(2500));
  const auto s = j.snapshot();
  ASSERT_TRUE(s.reply.ok) << s.reply.text("message");
  EXPECT_GT(rangesNamed(s.trace, "F mb="), 10u);
  EXPECT_GT(rangesNamed(s.trace, "step "), 3u);
  // The file's window and metadata, its newest seconds only.
  ASSERT_EQ(s.trace.meta.captureWindows.size(), 1u);
  EXPECT_EQ(s.trace.meta.captureWindows[0].reason, "record");
  EXPECT_EQ(s.trace.meta.rank, -1);
  const int64_t now = s.reply.integer("now_ns", 0);
  EXPECT_GE(earliestEnd(s.trace), now - kSecond - 700'000'000) << "pruned too little";
  EXPECT_GT(latestEnd(s.trace), now - 500'000'000) << "the newest events are missing";
  // A detach ends the file window; the watch goes on in memory.
  EXPECT_EQ(j.ask("stop").text("stopped"), "window");
  EXPECT_EQ(j.ask("status").text("state"), "watching");
  std::this_thread::sleep_for(milliseconds(500));
  const auto after = j.snapshot();
  ASSERT_TRUE(after.reply.ok) << after.reply.text("message");
  // The watch's trace went on: the file's window, then the memory window, and ops of both.
  ASSERT_EQ(after.trace.meta.captureWindows.size(), 2u);
  EXPECT_EQ(after.trace.meta.captureWindows[0].reason, "record");
  EXPECT_EQ(after.trace.meta.captureWindows[1].reason, "watch");
  EXPECT_LT(earliestEnd(after.trace), after.trace.meta.captureWindows[1].start);
  EXPECT_GT(latestEnd(after.trace), after.trace.meta.captureWindows[1].start);
  EXPECT_EQ(j.finish(), 0) << j.job().err();

  const auto files = traceFiles(j.run());
  ASSERT_EQ(files.size(), 1u);
  const traces::RankTrace file = traces::readRankTrace(files[0]);
  ASSERT_EQ(file.meta.captureWindows.size(), 1u);  // no memory window in it
  expectEveryOp(file);
  EXPECT_EQ(j.job().err().find("memory window"), std::string::npos) << j.job().err();
}

// A file window asked for while watching takes over from the memory window, and the watch goes on
// beside it, then in memory again once it ended; the file holds its own window's events only.
TEST(AgentWatch, AFileWindowOpensUnderAWatchAndTheWatchGoesOn) {
  WatchedJob j;
  ASSERT_TRUE(j.ready()) << j.job().err();
  ASSERT_TRUE(j.ask("watch keep=1").ok);
  std::this_thread::sleep_for(milliseconds(500));
  ASSERT_TRUE(j.snapshot().reply.ok);

  const control::Reply attach = j.ask("start duration=1");
  ASSERT_TRUE(attach.ok) << attach.text("message");
  EXPECT_EQ(j.ask("status").text("state"), "recording");
  std::this_thread::sleep_for(milliseconds(400));
  const auto beside = j.snapshot();
  ASSERT_TRUE(beside.reply.ok) << beside.reply.text("message");
  ASSERT_EQ(beside.trace.meta.captureWindows.size(), 1u);
  EXPECT_EQ(beside.trace.meta.captureWindows[0].reason, "attach duration=1");
  EXPECT_GT(rangesNamed(beside.trace, "F mb="), 3u);
  // The attach window ends by itself; the watch is in memory again.
  ASSERT_TRUE(eventually([&] { return j.ask("status").text("state") == "watching"; }, seconds(20)));
  std::this_thread::sleep_for(milliseconds(300));
  const auto again = j.snapshot();
  ASSERT_TRUE(again.reply.ok) << again.reply.text("message");
  ASSERT_EQ(again.trace.meta.captureWindows.size(), 2u);  // the attach's, then memory again
  EXPECT_EQ(again.trace.meta.captureWindows[0].reason, "attach duration=1");
  EXPECT_EQ(again.trace.meta.captureWindows[1].reason, "watch");
  ASSERT_TRUE(j.ask("stop").ok);
  ASSERT_EQ(j.finish(), 0) << j.job().err();

  const auto files = traceFiles(j.run());
  ASSERT_EQ(files.size(), 1u);
  const traces::RankTrace file = traces::readRankTrace(files[0]);
  ASSERT_EQ(file.meta.captureWindows.size(), 1u);
  const traces::CaptureWindow& w = file.meta.captureWindows[0];
  EXPECT_EQ(w.reason, "attach duration=1");
  ASSERT_GT(file.ranges->size(), 10u);
  // Only ranges begun inside the file window: none from either memory window.
  for (size_t i = 0; i < file.ranges->size(); ++i) {
    EXPECT_GE(file.ranges->start[i], w.start) << file.strings.at(file.ranges->name[i]);
    EXPECT_LE(file.ranges->start[i], w.end) << file.strings.at(file.ranges->name[i]);
  }
}

}  // namespace
}  // namespace bubblescope::testing
