// A rank's ops and comms in start order with what is kept beside them (analyzer/recognize/
// rank_order.h): each op its kernels and host range, each comm when it was posted, whichever list
// was sorted, merged or moved; lists that disagree are refused.
#include "analyzer/recognize/rank_order.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace bubblescope::analysis {
namespace {

constexpr Op F0{OpKind::F, 0, 0}, F1{OpKind::F, 1, 0}, F2{OpKind::F, 2, 0};

RecognizedComm comm(int mb, TimeNs start) {
  return RecognizedComm{
      .send = true, .pass = OpKind::F, .mb = mb, .peer = 1, .start = start, .end = start + 5};
}

std::vector<int> mbs(const RankOps& ops) {
  std::vector<int> out;
  for (const RecognizedComm& c : ops.comms) out.push_back(c.mb);
  return out;
}

TEST(SortOpsByStart, EachOpKeepsItsKernelsAndEqualStartsKeepTheirOrder) {
  RankOps ops;
  ops.ops = {{.op = F0, .start = 30}, {.op = F1, .start = 10}, {.op = F2, .start = 10}};
  ops.opKernels = {{.firstLaunch = 29, .begin = 0, .end = 1},
                   {.firstLaunch = 9, .begin = 1, .end = 3},
                   {.firstLaunch = 8, .begin = 3, .end = 3}};
  sortOpsByStart(ops);
  ASSERT_EQ(ops.ops.size(), 3u);
  EXPECT_EQ(ops.ops[0].op, F1);
  EXPECT_EQ(ops.ops[1].op, F2);
  EXPECT_EQ(ops.ops[2].op, F0);
  EXPECT_EQ(ops.kernelsOf(0).firstLaunch, 9);
  EXPECT_EQ(ops.kernelsOf(1).begin, 3u);
  EXPECT_EQ(ops.kernelsOf(2).end, 1u);
  // A rank without kernels: the ops alone, and no op has a launch call.
  ops.opKernels.clear();
  ops.ops[0].start = 40;
  sortOpsByStart(ops);
  EXPECT_EQ(ops.ops[2].op, F1);
  EXPECT_EQ(ops.kernelsOf(2).firstLaunch, kNoLaunch);
  // Lists that disagree are the caller's error, not a sort of one of them.
  ops.opKernels.resize(1);
  EXPECT_THROW(sortOpsByStart(ops), std::logic_error);
}

TEST(SortOpsByStart, EachOpKeepsItsHostRangeBesideItsKernels) {
  RankOps ops;
  ops.ops = {{.op = F0, .start = 30, .end = 35}, {.op = F1, .start = 10, .end = 12}};
  EXPECT_EQ(ops.hostOf(0), (HostSpan{30, 35}));  // none held: its span
  ops.opHosts = {{25, 31}, {2, 11}};
  sortOpsByStart(ops);  // without kernels
  EXPECT_EQ(ops.ops[0].op, F1);
  EXPECT_EQ(ops.hostOf(0), (HostSpan{2, 11}));
  EXPECT_EQ(ops.hostOf(1), (HostSpan{25, 31}));
  ops.ops[0].start = 50;
  ops.opKernels = {{.firstLaunch = 3, .begin = 0, .end = 1},
                   {.firstLaunch = 26, .begin = 1, .end = 2}};
  sortOpsByStart(ops);  // with both beside
  EXPECT_EQ(ops.ops[1].op, F1);
  EXPECT_EQ(ops.hostOf(1), (HostSpan{2, 11}));
  EXPECT_EQ(ops.kernelsOf(1).firstLaunch, 3);
  ops.opHosts.pop_back();
  EXPECT_THROW(sortOpsByStart(ops), std::logic_error);
}

// An op's span moves to its kernels': its host range (its span until then) is kept first.
TEST(HoldOpHosts, EachOpsSpanBecomesItsHostRangeOnce) {
  RankOps ops;
  holdOpHosts(ops);  // no ops: nothing to hold
  EXPECT_TRUE(ops.opHosts.empty());
  ops.ops = {{.op = F0, .start = 10, .end = 20}, {.op = F1, .start = 30, .end = 40}};
  holdOpHosts(ops);
  EXPECT_EQ(ops.opHosts, (std::vector<HostSpan>{{10, 20}, {30, 40}}));
  ops.ops[0].start = 14;  // its kernels ran later
  holdOpHosts(ops);       // already held: not taken again from the moved span
  EXPECT_EQ(ops.hostOf(0), (HostSpan{10, 20}));
}

TEST(SortCommsByStart, EachCommKeepsItsLaunchAndEqualStartsKeepTheirOrder) {
  RankOps ops;
  ops.comms = {comm(0, 30), comm(1, 10), comm(2, 10)};
  sortCommsByStart(ops);  // posted as they began: nothing beside them
  EXPECT_EQ(mbs(ops), (std::vector<int>{1, 2, 0}));
  EXPECT_TRUE(ops.commLaunches.empty());
  EXPECT_EQ(ops.launchOf(2), 30);

  ops.comms = {comm(0, 30), comm(1, 10), comm(2, 10)};
  ops.commLaunches = {25, 2, kNoLaunch};
  sortCommsByStart(ops);
  EXPECT_EQ(mbs(ops), (std::vector<int>{1, 2, 0}));
  EXPECT_EQ(ops.commLaunches, (std::vector<TimeNs>{2, kNoLaunch, 25}));
  ops.commLaunches.pop_back();
  EXPECT_THROW(sortCommsByStart(ops), std::logic_error);
}

// A comm's start moves to its kernels' span: what was its start is kept as its launch first.
TEST(HoldCommLaunches, EachCommsStartBecomesItsLaunchOnce) {
  RankOps ops;
  holdCommLaunches(ops);  // no comms: nothing to hold
  EXPECT_TRUE(ops.commLaunches.empty());
  ops.comms = {comm(0, 10), comm(1, 20)};
  holdCommLaunches(ops);
  EXPECT_EQ(ops.commLaunches, (std::vector<TimeNs>{10, 20}));
  ops.comms[0].start = 14;  // its kernel ran later
  holdCommLaunches(ops);    // already held: not taken again from the moved start
  EXPECT_EQ(ops.launchOf(0), 10);
  EXPECT_EQ(ops.launchOf(1), 20);
}

TEST(AddComms, CommsMadeFromKernelsJoinInStartOrderWithTheirLaunches) {
  RankOps ops;
  addComms(ops, {{comm(0, 30), comm(1, 10)}, {28, kNoLaunch}});  // none before: taken whole
  EXPECT_EQ(mbs(ops), (std::vector<int>{1, 0}));
  EXPECT_EQ(ops.commLaunches, (std::vector<TimeNs>{kNoLaunch, 28}));

  // Beside comms posted as they began: theirs are held, then all sorted together.
  RankOps labelled;
  labelled.comms = {comm(5, 5), comm(6, 40)};
  addComms(labelled, {{comm(7, 20)}, {18}});
  EXPECT_EQ(mbs(labelled), (std::vector<int>{5, 7, 6}));
  EXPECT_EQ(labelled.commLaunches, (std::vector<TimeNs>{5, 18, 40}));
  addComms(labelled, {});  // nothing added: nothing changes
  EXPECT_EQ(labelled.comms.size(), 3u);

  EXPECT_THROW(addComms(labelled, {{comm(8, 1)}, {}}), std::logic_error);
}

}  // namespace
}  // namespace bubblescope::analysis
