// A channel between two stages in one process: messages cross in order and land in the peer's
// mailbox; SEND ranges wrap the writes (and the injected delay); a sender can wait for its sends
// to be written; a peer that goes away is noticed.
#include "reference_engine/executor/channel.h"

#include <sys/socket.h>

#include <gtest/gtest.h>

#include <future>

#include "reference_engine/executor/clock.h"

namespace bubblescope::engine {
namespace {

struct Pair {
  Pair() {
    int sv[2];
    EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    a = std::make_unique<Channel>(0, 1, sv[0], boxA, annotA);
    b = std::make_unique<Channel>(1, 0, sv[1], boxB, annotB);
  }
  Mailbox boxA, boxB;
  Annotator annotA, annotB;
  std::unique_ptr<Channel> a, b;
};

OutgoingMessage activation(int mb, size_t bytes, bool annotate = true, int64_t delayNs = 0) {
  OutgoingMessage m;
  m.delayNs = delayNs;
  m.header = {MessageKind::Activation, 0, mb, 0, bytes};
  m.payload.assign(bytes, static_cast<std::byte>(mb));
  if (annotate) m.rangeName = "SEND F mb=" + std::to_string(mb) + " to=1";
  m.record = {0, false, mb, 0, 1, 0, 0, 0, 0};
  return m;
}

TEST(Channel, MessagesArriveInThePeersMailboxWithTheirPayload) {
  Pair pair;
  for (int mb = 0; mb < 5; ++mb) pair.a->send(activation(mb, 100000));  // > socket buffer
  for (int mb = 4; mb >= 0; --mb) {
    Payload p = pair.boxB.take(0, {0, MessageKind::Activation, mb, 0});
    ASSERT_EQ(p.size(), 100000u);
    EXPECT_EQ(p.front(), static_cast<std::byte>(mb));
  }
  pair.a->finish();
  pair.b->finish();
  EXPECT_EQ(pair.a->sends().size(), 5u);
}

TEST(Channel, SendRangeWrapsTheWriteAndTheInjectedDelay) {
  Pair pair;
  const int64_t before = realtimeNs();
  pair.a->send(activation(0, 64, true, msToNs(15)));
  pair.boxB.take(0, {0, MessageKind::Activation, 0, 0});
  EXPECT_GE(realtimeNs() - before, msToNs(15));
  pair.a->finish();
  pair.b->finish();
  auto sends = pair.a->sends();
  ASSERT_EQ(sends.size(), 1u);
  EXPECT_GE(sends[0].endNs - sends[0].startNs, msToNs(15));
  EXPECT_EQ(sends[0].bytes, 64u);
  auto ranges = pair.annotA.ranges();
  ASSERT_EQ(ranges.size(), 1u);
  EXPECT_EQ(ranges[0].name, "SEND F mb=0 to=1");
  EXPECT_EQ(ranges[0].startNs, sends[0].startNs);
  // on the sender thread, which is named after its link
  bool named = false;
  for (const auto& t : pair.annotA.threads())
    named |= t.tid == ranges[0].tid && t.name == "stage 0 send→1";
  EXPECT_TRUE(named);
}

// A comm delay confined to some steps holds only their messages: the delay is the message's.
TEST(Channel, OnlyTheMessagesGivenADelayAreHeld) {
  Pair pair;
  pair.a->send(activation(0, 64, true, msToNs(15)));
  pair.a->send(activation(1, 64));
  pair.a->finish();
  pair.b->finish();
  auto sends = pair.a->sends();
  ASSERT_EQ(sends.size(), 2u);
  EXPECT_GE(sends[0].endNs - sends[0].startNs, msToNs(15));
  // A sleep can end late, never early: the undelayed send is only known to be shorter than the
  // delay when the machine did not hold it as long itself, so its order is what is checked.
  EXPECT_EQ(sends[0].mb, 0);
  EXPECT_LT(sends[1].endNs - sends[1].startNs, msToNs(15));
}

// What an injected crash waits for: the sends it posted written, their SEND ranges closed.
TEST(Channel, WaitUntilWrittenReturnsWhenEverySendPostedHasItsRangeClosed) {
  Pair pair;
  pair.a->send(activation(0, 64, true, msToNs(10)));
  pair.a->send(activation(1, 64, true, msToNs(10)));
  pair.a->waitUntilWritten();
  EXPECT_EQ(pair.a->sends().size(), 2u);
  EXPECT_EQ(pair.annotA.ranges().size(), 2u);
  pair.a->waitUntilWritten();  // nothing posted: at once
  pair.a->finish();
  pair.b->finish();
}

TEST(Channel, UnannotatedTrafficOpensNoRangeAndIsNotRecorded) {
  Pair pair;
  pair.a->send(activation(0, 8, /*annotate=*/false));
  pair.boxB.take(0, {0, MessageKind::Activation, 0, 0});
  pair.a->finish();
  pair.b->finish();
  EXPECT_TRUE(pair.a->sends().empty());
  EXPECT_TRUE(pair.annotA.ranges().empty());
}

TEST(Channel, PeerThatGoesAwayFailsTheWaitingTake) {
  Pair pair;
  auto taken = std::async(std::launch::async, [&] {
    return pair.boxA.take(1, {0, MessageKind::Gradient, 0, 0});
  });
  pair.b.reset();  // the peer stage dies: its end closes
  EXPECT_THROW(taken.get(), PeerLost);
}

TEST(Channel, FinishReturnsEvenThoughThePeerKeepsItsEndOpen) {
  Pair pair;
  const int64_t start = monotonicNs();
  pair.a->finish();
  EXPECT_LT(monotonicNs() - start, msToNs(1000));
}

}  // namespace
}  // namespace bubblescope::engine
