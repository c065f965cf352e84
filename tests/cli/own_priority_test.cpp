// The watch's thread yields to the job: lowering its priority touches that thread and the threads
// it starts afterwards, never the rest of the process (record --watch runs beside the job's
// launcher in one process).
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <thread>

#include "cli/own_priority.h"

namespace bubblescope::cli {
namespace {

int niceOfThread(pid_t tid) {
  errno = 0;
  const int n = getpriority(PRIO_PROCESS, static_cast<id_t>(tid));
  EXPECT_EQ(errno, 0);
  return n;
}

TEST(OwnPriority, LowersTheCallingThreadAndWhatItStartsOnly) {
  const int before = niceOfThread(gettid());
  int lowered = 0, child = 0;
  std::thread watch([&] {
    lowerThisThreadsPriority(3);
    lowered = niceOfThread(gettid());
    std::thread started([&] { child = niceOfThread(gettid()); });
    started.join();
  });
  watch.join();
  EXPECT_EQ(lowered, std::min(before + 3, 19));
  EXPECT_EQ(child, lowered);
  EXPECT_EQ(niceOfThread(gettid()), before);
}

TEST(OwnPriority, ZeroLeavesIt) {
  int seen = -100;
  const int before = niceOfThread(gettid());
  std::thread t([&] {
    lowerThisThreadsPriority(0);
    seen = niceOfThread(gettid());
  });
  t.join();
  EXPECT_EQ(seen, before);
}

TEST(OwnPriority, TheIdleClassTakesTheCallingThreadAndWhatItStartsOnly) {
  int entered = -1, child = -1;
  bool ok = false;
  std::thread step([&] {
    ok = enterIdleClass();
    entered = sched_getscheduler(gettid());
    std::thread started([&] { child = sched_getscheduler(gettid()); });
    started.join();
  });
  step.join();
  EXPECT_TRUE(ok);
  EXPECT_EQ(entered, SCHED_IDLE);
  EXPECT_EQ(child, SCHED_IDLE);
  EXPECT_EQ(sched_getscheduler(gettid()), SCHED_OTHER);
}

}  // namespace
}  // namespace bubblescope::cli
