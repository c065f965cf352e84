// An NDTimeline timeline's thread names by (pid, tid): found once sealed, a thread named twice
// keeps its last name, threads of the same tid in other processes stay apart.
#include <gtest/gtest.h>

#include "traces/import/chrome_json/ndtimeline/thread_names.h"

namespace bubblescope::traces::import::ndtimeline {
namespace {

TEST(ThreadNames, EachThreadKeepsItsLastNameOnceSealed) {
  ThreadNames names;
  ASSERT_TRUE(names.add(7, 10, "PP rank 0, TP rank 0, Compute"));
  ASSERT_TRUE(names.add(3, 10, "PP rank 1, TP rank 0, Compute"));
  ASSERT_TRUE(names.add(7, 11, "PP rank 0, TP rank 0, PP comm"));
  ASSERT_TRUE(names.add(7, 10, "renamed"));
  EXPECT_FALSE(names.find(7, 10)) << "looked up before seal()";
  names.seal();
  EXPECT_EQ(names.find(7, 10), "renamed");
  EXPECT_EQ(names.find(3, 10), "PP rank 1, TP rank 0, Compute");
  EXPECT_EQ(names.find(7, 11), "PP rank 0, TP rank 0, PP comm");
  EXPECT_FALSE(names.find(7, 12));
  EXPECT_FALSE(names.find(3, 11));
  // Added after sealing: sealed again before it is found.
  ASSERT_TRUE(names.add(3, 11, ""));
  names.seal();
  EXPECT_EQ(names.find(3, 11), "");
  EXPECT_EQ(names.find(7, 10), "renamed");
}

}  // namespace
}  // namespace bubblescope::traces::import::ndtimeline
