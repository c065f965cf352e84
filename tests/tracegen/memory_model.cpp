#include "tests/tracegen/memory_model.h"

#include <algorithm>

namespace bubblescope::tracegen {

std::vector<AllocatorCall> allocatorCalls(const JobTimeline& job, int rank) {
  const JobSpec& spec = job.spec;
  std::vector<AllocatorCall> calls;
  if (!spec.recordMemory) return calls;
  const RankTimeline& tl = job.ranks.at(static_cast<size_t>(rank));
  // Device addresses as the driver hands them out: page-aligned, rising; a segment is named by
  // its microbatch, chunk and step so its free names the same address.
  constexpr uint64_t kBase = 0x7f0000000000;
  auto segmentAddress = [&](const OpId& id) {
    return kBase + (uint64_t{1} << 36) + (static_cast<uint64_t>(id.chunk) << 44) +
           (static_cast<uint64_t>(id.step * spec.m + id.mb) << 33);
  };
  calls.push_back({spec.start, spec.weightMemory, spec.weightMemory, kBase, 0, 0});
  for (const HostRange& h : tl.ranges) {
    if (h.kind != HostKind::PipelineOp) continue;
    const OpId& id = tl.ops[static_cast<size_t>(h.index)].id;
    const int64_t tensor = spec.mbActivationMemory;
    const int64_t segment = spec.mbActivationMemory + spec.segmentSlack;
    if (id.pass == PassKind::F) {
      calls.push_back({h.start, tensor, segment, segmentAddress(id), 0, 0});
    } else if (id.pass != PassKind::B) {
      // The last pass that reads them frees them: the full backward, or under ZB-V the weight
      // gradient (it needs the forward's inputs, which the input gradient leaves behind).
      calls.push_back({h.end, -tensor, -segment, segmentAddress(id), 0, 0});
    }
  }
  std::stable_sort(calls.begin(), calls.end(),
                   [](const AllocatorCall& a, const AllocatorCall& b) { return a.time < b.time; });
  int64_t allocated = 0, reserved = 0;
  for (AllocatorCall& c : calls) {
    allocated += c.tensorBytes;
    reserved += c.segmentBytes;
    c.allocated = allocated;
    c.reserved = reserved;
  }
  return calls;
}

int64_t leastFreeIn(const std::vector<AllocatorCall>& calls, uint64_t capacity, TimeNs from,
                    TimeNs to) {
  int64_t most = 0, inForce = 0;
  for (const AllocatorCall& c : calls) {
    if (c.time <= from)
      inForce = c.reserved;
    else if (c.time <= to)
      most = std::max(most, c.reserved);
  }
  return static_cast<int64_t>(capacity) - std::max(most, inForce);
}

}  // namespace bubblescope::tracegen
