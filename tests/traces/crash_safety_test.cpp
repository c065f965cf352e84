// A writer killed mid-run leaves a readable file holding every committed batch.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "tests/support/temp_dir.h"
#include "traces/sqlite/trace_reader.h"
#include "traces/sqlite/trace_writer.h"

namespace bubblescope::traces {
namespace {

using testing::TempDir;

TEST(CrashSafety, SigkillLeavesEveryCommittedBatchReadable) {
  TempDir dir;
  const auto file = dir / "rank-00000.sqlite";
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    RankMeta meta;
    meta.rank = 0;
    TraceWriter w(file, meta);
    const StringId name = w.intern("F mb=0");
    for (int batch = 0; batch < 5; ++batch) {
      for (int i = 0; i < 1000; ++i) {
        const TimeNs t = batch * 1000 + i;
        w.add(RangeRecord{t, t + 1, 1, 1, 0, name, 0, RangeKind::PushPop, 0, 0});
      }
      w.commit();
    }
    // An uncommitted batch in flight when the kill comes.
    for (int i = 0; i < 500; ++i) w.add(RangeRecord{9000 + i, 9001 + i, 1, 1, 0, name});
    (void)!write(ready[1], "x", 1);
    pause();
    _exit(0);
  }
  char c;
  ASSERT_EQ(read(ready[0], &c, 1), 1);
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));

  const RankTrace t = readRankTrace(file);
  EXPECT_EQ(t.meta.rank, 0);
  EXPECT_EQ(t.ranges->size(), 5000u);
  EXPECT_EQ(t.ranges->start.back(), 4999);
}

}  // namespace
}  // namespace bubblescope::traces
