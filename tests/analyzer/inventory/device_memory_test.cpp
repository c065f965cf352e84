// Free device memory over an interval: capacity less the most the job held in it, from the value
// in force at its start through every change inside; reserved bytes before allocated ones (live
// tensors on request); the device the rank used most.
#include <gtest/gtest.h>

#include "analyzer/inventory/device_memory.h"

namespace bubblescope::analysis {
namespace {

constexpr int64_t kGiB = int64_t{1} << 30;

traces::RankTrace rankWith(std::initializer_list<std::tuple<TimeNs, uint32_t, int64_t, int64_t>> s,
                           uint64_t capacity) {
  traces::RankTrace t;
  t.devices.push_back(traces::Device{0, 0, "", capacity});
  t.devices.push_back(traces::Device{1, 0, "", capacity});
  for (auto [ts, device, allocated, reserved] : s) {
    t.memory->start.push_back(ts);
    t.memory->device.push_back(device);
    t.memory->allocated.push_back(allocated);
    t.memory->reserved.push_back(reserved);
  }
  return t;
}

TEST(DeviceMemory, LeastFreeCountsTheValueAtStartAndEveryChangeInside) {
  // Reserve 10 GiB at 100, 30 at 200, back to 20 at 300, on an 80 GiB device.
  const auto t = rankWith({{100, 0, 5 * kGiB, 10 * kGiB},
                           {200, 0, 25 * kGiB, 30 * kGiB},
                           {300, 0, 15 * kGiB, 20 * kGiB}},
                          80 * kGiB);
  const DeviceMemorySeries s = deviceMemoryOf(t, 0);
  EXPECT_EQ(s.basis, MemoryBasis::Reserved);
  struct Case {
    TimeNs start, end;
    int64_t free;
  };
  for (const Case& c : {Case{120, 180, 70 * kGiB},              // inside the first value
                        Case{150, 250, 50 * kGiB},              // the rise to 30 inside
                        Case{250, 350, 50 * kGiB},              // 30 in force at start
                        Case{310, 900, 60 * kGiB},              // after the last change
                        Case{0, 150, 70 * kGiB},                // starts before the first sample
                        Case{0, 50, traces::kBytesUnknown}}) {  // ends before it
    EXPECT_EQ(s.leastFree(c.start, c.end), c.free) << c.start << "-" << c.end;
  }
  // The offset moves the samples into the analysis' clock.
  EXPECT_EQ(deviceMemoryOf(t, 1000).leastFree(1120, 1180), 70 * kGiB);
}

TEST(DeviceMemory, AllocatedWhenReserveIsNotRecordedAndUnknownWithoutCapacity) {
  const auto t = rankWith(
      {{100, 0, 5 * kGiB, traces::kBytesUnknown}, {200, 0, 7 * kGiB, traces::kBytesUnknown}},
      16 * kGiB);
  const DeviceMemorySeries s = deviceMemoryOf(t, 0);
  EXPECT_EQ(s.basis, MemoryBasis::Allocated);
  EXPECT_EQ(s.leastFree(100, 250), 9 * kGiB);

  const DeviceMemorySeries noCapacity = deviceMemoryOf(rankWith({{100, 0, 1, 2}}, 0), 0);
  EXPECT_EQ(noCapacity.basis, MemoryBasis::Reserved);
  EXPECT_FALSE(noCapacity.freeKnown());
  EXPECT_EQ(noCapacity.leastFree(0, 1000), traces::kBytesUnknown);

  EXPECT_EQ(deviceMemoryOf(traces::RankTrace{}, 0).basis, MemoryBasis::NotRecorded);
}

TEST(DeviceMemory, LiveTensorsAreTheAllocatedBytesEvenWhereTheReserveIsRecorded) {
  const auto t = rankWith({{100, 0, 5 * kGiB, 10 * kGiB},
                           {200, 0, 25 * kGiB, 30 * kGiB},
                           {300, 0, 15 * kGiB, 30 * kGiB}},
                          80 * kGiB);
  const DeviceMemorySeries live = liveTensorsOf(t, 0);
  EXPECT_EQ(live.basis, MemoryBasis::Allocated);
  EXPECT_EQ(live.mostUsed(150, 350), 25 * kGiB);
  EXPECT_EQ(live.leastUsed(150, 350), 5 * kGiB);  // in force at 150
  EXPECT_EQ(live.leastUsed(250, 350), 15 * kGiB);
  EXPECT_EQ(live.mostUsed(0, 50), traces::kBytesUnknown);
  EXPECT_EQ(deviceMemoryOf(t, 0).mostUsed(250, 350), 30 * kGiB) << "the reserve";
  const auto reserveOnly = rankWith({{100, 0, traces::kBytesUnknown, 10 * kGiB}}, 80 * kGiB);
  EXPECT_EQ(liveTensorsOf(reserveOnly, 0).basis, MemoryBasis::NotRecorded);
}

TEST(DeviceMemory, TheDeviceWithMostSamplesIsTheRanks) {
  const auto t = rankWith(
      {{100, 1, 0, 1 * kGiB}, {150, 0, 0, 40 * kGiB}, {200, 1, 0, 2 * kGiB}, {300, 1, 0, 3 * kGiB}},
      80 * kGiB);
  const DeviceMemorySeries s = deviceMemoryOf(t, 0);
  EXPECT_EQ(s.device, 1u);
  EXPECT_EQ(s.leastFree(100, 250), 78 * kGiB);  // device 0's 40 GiB is not this rank's
}

}  // namespace
}  // namespace bubblescope::analysis
