#include "analyzer/inventory/device_memory.h"

#include <algorithm>
#include <map>

namespace bubblescope::analysis {

int64_t DeviceMemorySeries::leastFree(TimeNs start, TimeNs end) const {
  if (!freeKnown() || time.empty() || end < time.front()) return traces::kBytesUnknown;
  // The sample in force at start (or the first one, for an interval that starts before any).
  auto first = std::upper_bound(time.begin(), time.end(), start);
  if (first != time.begin()) --first;
  const auto last = std::upper_bound(first, time.end(), end);
  int64_t most = 0;
  for (auto i = first; i != last; ++i) {
    most = std::max(most, used[static_cast<size_t>(i - time.begin())]);
  }
  return std::max<int64_t>(0, static_cast<int64_t>(capacity) - most);
}

DeviceMemorySeries deviceMemoryOf(const traces::RankTrace& t, TimeNs offset) {
  DeviceMemorySeries s;
  const traces::MemoryUsage& m = t.memory;
  if (m.size() == 0) return s;
  std::map<uint32_t, size_t> samples;
  for (uint32_t d : m.device) ++samples[d];
  s.device = std::max_element(samples.begin(), samples.end(), [](const auto& a, const auto& b) {
               return a.second < b.second;
             })->first;
  bool reserved = false, allocated = false;
  for (size_t i = 0; i < m.size(); ++i) {
    if (m.device[i] != s.device) continue;
    reserved = reserved || m.reserved[i] != traces::kBytesUnknown;
    allocated = allocated || m.allocated[i] != traces::kBytesUnknown;
  }
  if (!reserved && !allocated) return s;
  s.basis = reserved ? MemoryBasis::Reserved : MemoryBasis::Allocated;
  const std::vector<int64_t>& bytes = reserved ? m.reserved : m.allocated;
  for (size_t i = 0; i < m.size(); ++i) {  // the table is sorted by time
    if (m.device[i] != s.device || bytes[i] == traces::kBytesUnknown) continue;
    s.time.push_back(m.start[i] + offset);
    s.used.push_back(bytes[i]);
  }
  for (const traces::Device& d : t.devices) {
    if (d.id == s.device) s.capacity = d.memoryBytes;
  }
  return s;
}

}  // namespace bubblescope::analysis
