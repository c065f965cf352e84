// The per-thread ring: records come out whole and in order, wrap around the end, and a full
// ring refuses rather than overwrites.
#include "agent/core/event_ring.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace bubblescope::agent {
namespace {

struct Ring {
  explicit Ring(size_t capacity) : memory(capacity) { ring.attach(memory.data(), capacity); }
  bool put(uint16_t type, const std::string& text) {
    const uint32_t bytes = recordBytes(8, static_cast<uint32_t>(text.size()));
    uint8_t* at = ring.reserve(bytes);
    if (at == nullptr) return false;
    const uint64_t payload = type * 1000u;
    auto* h = reinterpret_cast<RecordHeader*>(at);
    *h =
        RecordHeader{type, 8, static_cast<uint16_t>(text.size()), static_cast<uint16_t>(bytes / 8)};
    std::memcpy(at + 8, &payload, 8);
    std::memcpy(at + 16, text.data(), text.size());
    ring.commit(bytes);
    return true;
  }
  std::vector<std::string> take(size_t max = 1000) {
    std::vector<std::string> out;
    ring.drain(
        [&](const RecordHeader& h, const uint8_t* payload, const char* text) {
          uint64_t value = 0;
          std::memcpy(&value, payload, 8);
          EXPECT_EQ(value, h.type * 1000u);
          out.push_back(std::to_string(h.type) + ":" + std::string(text, h.textSize));
        },
        max);
    return out;
  }
  std::vector<uint8_t> memory;
  EventRing ring;
};

TEST(AgentRing, RecordsComeOutInOrderWithTheirText) {
  Ring r(4096);
  ASSERT_TRUE(r.put(1, "F mb=0"));
  ASSERT_TRUE(r.put(2, ""));
  ASSERT_TRUE(r.put(3, "SEND F mb=0 to=1"));
  EXPECT_EQ(r.take(), (std::vector<std::string>{"1:F mb=0", "2:", "3:SEND F mb=0 to=1"}));
  EXPECT_TRUE(r.ring.empty());
}

TEST(AgentRing, FullRingRefusesAndKeepsWhatItHas) {
  Ring r(256);  // 32-byte records: 8 fit
  int accepted = 0;
  while (r.put(1, "abcdefghijklmnop")) ++accepted;
  EXPECT_EQ(accepted, 8);
  EXPECT_EQ(r.take().size(), 8u);
  EXPECT_TRUE(r.put(1, "again"));
}

TEST(AgentRing, RecordsWrapAroundTheEndWithPadding) {
  Ring r(256);
  std::vector<std::string> expected;
  // Odd sizes so records straddle the end many times.
  for (int i = 0; i < 500; ++i) {
    const std::string text(static_cast<size_t>(i % 37), static_cast<char>('a' + i % 26));
    ASSERT_TRUE(r.put(static_cast<uint16_t>(1 + i % 5), text)) << i;
    expected.push_back(std::to_string(1 + i % 5) + ":" + text);
    const auto got = r.take();
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0], expected.back());
  }
}

TEST(AgentRing, DrainStopsAtTheBoundItWasGiven) {
  Ring r(4096);
  r.put(1, "a");
  const uint64_t bound = r.ring.published();
  r.put(2, "b");
  std::vector<std::string> out;
  r.ring.drain([&](const RecordHeader& h, const uint8_t*,
                   const char*) { out.push_back(std::to_string(h.type)); },
               100, bound);
  EXPECT_EQ(out, std::vector<std::string>{"1"});
  EXPECT_EQ(r.take(), std::vector<std::string>{"2:b"});
}

TEST(AgentRing, ZeroCapacityRingDropsEverything) {
  EventRing ring;
  ring.attach(nullptr, 0);
  EXPECT_EQ(ring.reserve(16), nullptr);
}

}  // namespace
}  // namespace bubblescope::agent
