// The mailbox: an op gets exactly its message whatever the arrival order, and never waits
// forever for a peer that has gone.
#include "reference_engine/executor/mailbox.h"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <thread>

namespace bubblescope::engine {
namespace {

using namespace std::chrono_literals;

Payload bytes(std::initializer_list<int> values) {
  Payload p;
  for (int v : values) p.push_back(static_cast<std::byte>(v));
  return p;
}

const MessageKey kF0{0, MessageKind::Activation, 0, 0};
const MessageKey kF1{0, MessageKind::Activation, 1, 0};

TEST(Mailbox, MessagesArrivingOutOfOrderReachTheirOwnTake) {
  Mailbox box;
  box.put(1, kF1, bytes({1}));
  box.put(1, kF0, bytes({0}));
  EXPECT_EQ(box.take(1, kF0), bytes({0}));
  EXPECT_EQ(box.take(1, kF1), bytes({1}));
  EXPECT_EQ(box.waiting(), 0u);
}

TEST(Mailbox, SameKeyFromDifferentPeersAreDifferentMessages) {
  Mailbox box;
  box.put(1, kF0, bytes({1}));
  box.put(3, kF0, bytes({3}));
  EXPECT_EQ(box.take(3, kF0), bytes({3}));
  EXPECT_EQ(box.take(1, kF0), bytes({1}));
}

TEST(Mailbox, TakeWaitsUntilItsMessageArrives) {
  Mailbox box;
  auto taken = std::async(std::launch::async, [&] { return box.take(2, kF1); });
  std::this_thread::sleep_for(5ms);
  box.put(2, kF0, bytes({0}));  // not the one it waits for
  EXPECT_EQ(taken.wait_for(5ms), std::future_status::timeout);
  box.put(2, kF1, bytes({7}));
  EXPECT_EQ(taken.get(), bytes({7}));
}

TEST(Mailbox, ClosedPeerFailsTheWaitingTake) {
  Mailbox box;
  auto taken = std::async(std::launch::async, [&] { return box.take(2, kF0); });
  std::this_thread::sleep_for(5ms);
  box.closePeer(2);
  EXPECT_THROW(taken.get(), PeerLost);
}

TEST(Mailbox, MessageThatArrivedBeforeThePeerClosedIsStillDelivered) {
  Mailbox box;
  box.put(2, kF0, bytes({9}));
  box.closePeer(2);
  EXPECT_EQ(box.take(2, kF0), bytes({9}));
  EXPECT_THROW(box.take(2, kF1), PeerLost);
}

TEST(Mailbox, ClosingOnePeerDoesNotFailTakesFromAnother) {
  Mailbox box;
  box.closePeer(0);
  auto taken = std::async(std::launch::async, [&] { return box.take(2, kF0); });
  std::this_thread::sleep_for(5ms);
  box.put(2, kF0, bytes({4}));
  EXPECT_EQ(taken.get(), bytes({4}));
}

TEST(Mailbox, AbortFailsEveryTake) {
  Mailbox box;
  auto taken = std::async(std::launch::async, [&] { return box.take(2, kF0); });
  std::this_thread::sleep_for(5ms);
  box.abort("could not send to stage 3");
  try {
    taken.get();
    FAIL();
  } catch (const PeerLost& e) {
    EXPECT_STREQ(e.what(), "could not send to stage 3");
  }
}

TEST(Mailbox, DuplicateMessageIsRefused) {
  Mailbox box;
  EXPECT_TRUE(box.put(1, kF0, {}));
  EXPECT_FALSE(box.put(1, kF0, {}));
}

}  // namespace
}  // namespace bubblescope::engine
