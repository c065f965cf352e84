// copyMessage, the dormant push's copy of a message into its open range: every length copied
// whole up to the limit, longer ones cut on a UTF-8 character boundary, and a message that ends
// at the edge of a page read without a fault in the next one.
#include "agent/nvtx/message_copy.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <string>

namespace bubblescope::agent {
namespace {

constexpr uint32_t kCapacity = 120;  // kMaxMessageBytes

std::string copied(const char* text, uint32_t capacity = kCapacity) {
  char out[kCapacity + 16];
  const uint32_t n = copyMessage(out, text, capacity);
  return std::string(out, n);
}

TEST(MessageCopy, EveryLengthUpToTheLimitIsCopiedWhole) {
  for (uint32_t len = 0; len <= kCapacity; ++len) {
    std::string s;
    for (uint32_t i = 0; i < len; ++i) s.push_back(static_cast<char>('a' + i % 26));
    EXPECT_EQ(copied(s.c_str()), s) << len;
  }
}

TEST(MessageCopy, ALongerMessageIsCutAtTheLimitOnACharacterBoundary) {
  EXPECT_EQ(copied(std::string(200, 'x').c_str()), std::string(120, 'x'));
  // "é" is 2 bytes: at 119-120 it would be split, so the cut comes before it.
  EXPECT_EQ(copied((std::string(119, 'x') + "\u00e9 tail").c_str()), std::string(119, 'x'));
  EXPECT_EQ(copied((std::string(118, 'x') + "\u00e9 tail").c_str()),
            std::string(118, 'x') + "\u00e9");
  // A 4-byte character across the limit.
  EXPECT_EQ(copied((std::string(117, 'x') + "\U0001F600").c_str()), std::string(117, 'x'));
  EXPECT_EQ(copied("short", 3), "sho");
}

TEST(MessageCopy, AMessageAtAPageEdgeIsReadWithoutTouchingTheNextPage) {
  const long page = sysconf(_SC_PAGESIZE);
  auto* pages = static_cast<char*>(
      mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  ASSERT_NE(pages, MAP_FAILED);
  ASSERT_EQ(mprotect(pages + page, page, PROT_NONE), 0);  // a read there is a SIGSEGV
  for (uint32_t len = 0; len <= 40; ++len) {
    // The terminator is the page's last byte.
    char* text = pages + page - len - 1;
    std::memset(text, 'p', len);
    text[len] = '\0';
    EXPECT_EQ(copied(text), std::string(len, 'p')) << len;
  }
  munmap(pages, 2 * page);
}

}  // namespace
}  // namespace bubblescope::agent
