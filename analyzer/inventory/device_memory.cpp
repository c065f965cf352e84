#include "analyzer/inventory/device_memory.h"

#include <algorithm>
#include <map>
#include <optional>

namespace bubblescope::analysis {

namespace {

// Applies f to every value in force during [start, end]; false when none is (no sample at or
// before end).
template <class F>
bool forEachInForce(const DeviceMemorySeries& s, TimeNs start, TimeNs end, F&& f) {
  if (s.time.empty() || end < s.time.front()) return false;
  // The sample in force at start (or the first one, for an interval that starts before any).
  auto first = std::upper_bound(s.time.begin(), s.time.end(), start);
  if (first != s.time.begin()) --first;
  const auto last = std::upper_bound(first, s.time.end(), end);
  for (auto i = first; i != last; ++i) f(s.used[static_cast<size_t>(i - s.time.begin())]);
  return true;
}

// The device with the most samples on this rank, or none.
std::optional<uint32_t> busiestDevice(const traces::MemoryUsage& m) {
  if (m.size() == 0) return std::nullopt;
  std::map<uint32_t, size_t> samples;
  for (uint32_t d : m.device) ++samples[d];
  return std::max_element(samples.begin(), samples.end(),
                          [](const auto& a, const auto& b) { return a.second < b.second; })
      ->first;
}

bool records(const traces::MemoryUsage& m, uint32_t device, const std::vector<int64_t>& bytes) {
  for (size_t i = 0; i < m.size(); ++i) {
    if (m.device[i] == device && bytes[i] != traces::kBytesUnknown) return true;
  }
  return false;
}

DeviceMemorySeries seriesOf(const traces::RankTrace& t, TimeNs offset, uint32_t device,
                            MemoryBasis basis) {
  DeviceMemorySeries s;
  s.basis = basis;
  s.device = device;
  const traces::MemoryUsage& m = t.memory;
  const std::vector<int64_t>& bytes = basis == MemoryBasis::Reserved ? m.reserved : m.allocated;
  for (size_t i = 0; i < m.size(); ++i) {  // the table is sorted by time
    if (m.device[i] != device || bytes[i] == traces::kBytesUnknown) continue;
    s.time.push_back(m.start[i] + offset);
    s.used.push_back(bytes[i]);
  }
  for (const traces::Device& d : t.devices) {
    if (d.id == device) s.capacity = d.memoryBytes;
  }
  return s;
}

}  // namespace

int64_t DeviceMemorySeries::leastFree(TimeNs start, TimeNs end) const {
  if (!freeKnown()) return traces::kBytesUnknown;
  const int64_t most = mostUsed(start, end);
  if (most == traces::kBytesUnknown) return traces::kBytesUnknown;
  return std::max<int64_t>(0, static_cast<int64_t>(capacity) - std::max<int64_t>(0, most));
}

int64_t DeviceMemorySeries::mostUsed(TimeNs start, TimeNs end) const {
  int64_t most = INT64_MIN;
  if (!forEachInForce(*this, start, end, [&](int64_t v) { most = std::max(most, v); })) {
    return traces::kBytesUnknown;
  }
  return most;
}

int64_t DeviceMemorySeries::leastUsed(TimeNs start, TimeNs end) const {
  int64_t least = INT64_MAX;
  if (!forEachInForce(*this, start, end, [&](int64_t v) { least = std::min(least, v); })) {
    return traces::kBytesUnknown;
  }
  return least;
}

DeviceMemorySeries deviceMemoryOf(const traces::RankTrace& t, TimeNs offset) {
  const std::optional<uint32_t> device = busiestDevice(t.memory);
  if (!device) return {};
  if (records(t.memory, *device, t.memory->reserved)) {
    return seriesOf(t, offset, *device, MemoryBasis::Reserved);
  }
  if (records(t.memory, *device, t.memory->allocated)) {
    return seriesOf(t, offset, *device, MemoryBasis::Allocated);
  }
  DeviceMemorySeries none;
  none.device = *device;
  return none;
}

DeviceMemorySeries liveTensorsOf(const traces::RankTrace& t, TimeNs offset) {
  const std::optional<uint32_t> device = busiestDevice(t.memory);
  if (!device || !records(t.memory, *device, t.memory->allocated)) return {};
  return seriesOf(t, offset, *device, MemoryBasis::Allocated);
}

}  // namespace bubblescope::analysis
