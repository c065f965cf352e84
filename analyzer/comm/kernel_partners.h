#pragma once
// The kernels each NCCL kernel waited for (the other sides of its calls), held as one flat list
// per rank with an offset per kernel. A vector per kernel cost about 56 bytes a kernel (its
// header, a heap block and the allocator's own); this costs 4 a kernel and 8 a partner, which on
// a Kineto job of a quarter million NCCL kernels was 11 MB of a 115 MB peak. Pure: no I/O.
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace bubblescope::analysis {

struct KernelRef {
  uint32_t rank = 0;    // index into the run (and into the RankOps list)
  uint32_t kernel = 0;  // index into that rank's RankOps::commKernels
  bool operator==(const KernelRef&) const = default;
  auto operator<=>(const KernelRef&) const = default;
};

class KernelPartners {
 public:
  KernelPartners() = default;
  // From (kernel, a kernel it waited for) pairs, in any order, repeats counted once;
  // kernelsOfRank[r]: how many NCCL kernels rank r has (pairs beyond them are dropped).
  KernelPartners(std::vector<std::pair<KernelRef, KernelRef>> waits,
                 const std::vector<size_t>& kernelsOfRank);

  size_t ranks() const { return begin_.size(); }
  size_t kernels(size_t rank) const { return begin_[rank].empty() ? 0 : begin_[rank].size() - 1; }
  // What rank `rank`'s kernel `kernel` waited for, ordered by (rank, kernel).
  std::span<const KernelRef> of(size_t rank, size_t kernel) const {
    const auto& b = begin_[rank];
    return {list_[rank].data() + b[kernel], b[kernel + 1] - b[kernel]};
  }

 private:
  std::vector<std::vector<uint32_t>> begin_;  // per rank: kernels + 1 offsets into list_
  std::vector<std::vector<KernelRef>> list_;  // per rank: every kernel's partners, in turn
};

}  // namespace bubblescope::analysis
