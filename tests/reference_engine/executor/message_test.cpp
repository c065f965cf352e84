// The wire header between stages: it round-trips, and a corrupt stream is caught, not trusted.
#include "reference_engine/executor/message.h"

#include <gtest/gtest.h>

#include <cstring>

namespace bubblescope::engine {
namespace {

TEST(MessageHeader, RoundTripsEveryField) {
  for (MessageKind kind :
       {MessageKind::Activation, MessageKind::Gradient, MessageKind::GradReduce,
        MessageKind::GradBroadcast, MessageKind::Rendezvous, MessageKind::RendezvousDone}) {
    MessageHeader h{kind, 123456, 1023, 3, 65536};
    EXPECT_EQ(decodeHeader(encodeHeader(h)), h);
  }
}

TEST(MessageHeader, KeyIgnoresThePayloadSize) {
  MessageHeader a{MessageKind::Gradient, 2, 5, 1, 10}, b{MessageKind::Gradient, 2, 5, 1, 99};
  EXPECT_EQ(keyOf(a), keyOf(b));
  b.chunk = 0;
  EXPECT_NE(keyOf(a), keyOf(b));
}

TEST(MessageHeader, WrongMagicIsAFramingError) {
  auto bytes = encodeHeader({MessageKind::Activation, 0, 0, 0, 8});
  bytes[0] = std::byte{0};
  EXPECT_THROW(decodeHeader(bytes), FramingError);
}

TEST(MessageHeader, UnknownKindIsAFramingError) {
  auto bytes = encodeHeader({MessageKind::Activation, 0, 0, 0, 8});
  bytes[4] = std::byte{42};
  EXPECT_THROW(decodeHeader(bytes), FramingError);
}

TEST(MessageHeader, ImpossibleSizeIsAFramingError) {
  auto bytes = encodeHeader({MessageKind::Activation, 0, 0, 0, 8});
  const uint64_t huge = kMaxPayloadBytes + 1;
  std::memcpy(bytes.data() + 16, &huge, sizeof huge);
  EXPECT_THROW(decodeHeader(bytes), FramingError);
}

}  // namespace
}  // namespace bubblescope::engine
