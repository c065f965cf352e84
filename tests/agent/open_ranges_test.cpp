// copyOpenRanges, the writer's (and a live `hang` answer's) copy of what each thread is inside,
// taken while the thread pushes and pops as fast as it can: every entry copied is whole (all its
// fields from one push), and a copy is a stack (depths 0, 1, ... in push order).
#include "agent/core/open_ranges.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

namespace bubblescope::agent {
namespace {

// The owner's side as the NVTX handlers do it (RangeStack): push n writes n into every field.
void push(RangeStack& stack, uint64_t n) {
  const uint64_t state = stack.load();
  OpenRange& e = stack.entries[RangeStack::depthOf(state)];
  RangeStack::beforeEntryWrite();
  e.startTicks = n;
  e.category = static_cast<uint32_t>(n);
  e.color = ~static_cast<uint32_t>(n);
  e.textSize = static_cast<uint16_t>(kMaxMessageBytes - n % 16);  // long: a wide window to tear
  std::memset(e.text, static_cast<int>(n & 0xFF), e.textSize);
  stack.pushed(state);
}

void pop(RangeStack& stack) {
  stack.popped(stack.load());
}

// A pop from the middle (another domain's range under the innermost).
void popBelowTop(RangeStack& stack) {
  const uint32_t depth = stack.depth();
  stack.lowerTo(depth - 2);
  std::memmove(&stack.entries[depth - 2], &stack.entries[depth - 1], sizeof(OpenRange));
  stack.setDepth(depth - 1);
}

bool whole(const OpenRange& e) {
  if (e.category != static_cast<uint32_t>(e.startTicks) ||
      e.color != ~static_cast<uint32_t>(e.startTicks) ||
      e.textSize != kMaxMessageBytes - e.startTicks % 16) {
    return false;
  }
  for (uint16_t i = 0; i < e.textSize; ++i) {
    if (static_cast<unsigned char>(e.text[i]) != (e.startTicks & 0xFF)) return false;
  }
  return true;
}

TEST(OpenRanges, ACopyTakenWhileTheThreadPushesAndPopsHoldsOnlyWholeEntries) {
  std::atomic<bool> ready{false}, done{false};
  std::atomic<uint64_t> tid{0};
  std::thread owner([&] {
    ThreadState* ts = acquireThreadState();
    if (ts == nullptr) {
      ready = true;
      return;
    }
    RangeStack& stack = ts->ranges;
    uint64_t n = 0;
    push(stack, ++n);  // an outer range that stays
    tid = ts->tid.load();
    ready = true;
    while (!done) {
      // Up to 6 deep and back, now and then closing a range from under the innermost.
      for (int k = 0; k < 5; ++k) push(stack, ++n);
      if (n % 3 == 0) popBelowTop(stack);
      while (stack.depth() > 1) pop(stack);
    }
    pop(stack);
  });
  while (!ready) std::this_thread::yield();
  if (tid == 0) {
    owner.join();
    FAIL() << "no thread state";
  }
  int copies = 0, torn = 0, disordered = 0, deeper = 0;
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(500);
  std::vector<OpenRangeCopy> out;
  while (std::chrono::steady_clock::now() < until) {
    out.clear();
    copyOpenRanges(0, out);
    uint32_t depth = 0;
    uint64_t last = 0;
    for (const OpenRangeCopy& c : out) {
      if (c.tid != tid) continue;
      torn += !whole(c.range);
      disordered += c.depth != depth++ || c.range.startTicks <= last;
      last = c.range.startTicks;
    }
    deeper += depth > 1;
    ++copies;
  }
  done = true;
  owner.join();
  EXPECT_GT(copies, 1000);
  EXPECT_GT(deeper, 0) << "no copy caught the thread inside more than its outer range";
  EXPECT_EQ(torn, 0) << "of " << copies << " copies, " << deeper << " deeper than 1";
  EXPECT_EQ(disordered, 0) << "of " << copies << " copies, " << deeper << " deeper than 1";
}

}  // namespace
}  // namespace bubblescope::agent
