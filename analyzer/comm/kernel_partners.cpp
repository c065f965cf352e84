#include "analyzer/comm/kernel_partners.h"

#include <algorithm>

namespace bubblescope::analysis {

KernelPartners::KernelPartners(std::vector<std::pair<KernelRef, KernelRef>> waits,
                               const std::vector<size_t>& kernelsOfRank) {
  std::erase_if(waits, [&](const std::pair<KernelRef, KernelRef>& w) {
    return w.first.rank >= kernelsOfRank.size() || w.first.kernel >= kernelsOfRank[w.first.rank];
  });
  std::sort(waits.begin(), waits.end());
  waits.erase(std::unique(waits.begin(), waits.end()), waits.end());
  begin_.resize(kernelsOfRank.size());
  list_.resize(kernelsOfRank.size());
  std::vector<size_t> count(kernelsOfRank.size(), 0);
  for (const auto& w : waits) ++count[w.first.rank];
  for (size_t r = 0; r < kernelsOfRank.size(); ++r) {
    begin_[r].assign(kernelsOfRank[r] + 1, 0);
    list_[r].reserve(count[r]);
  }
  // Sorted by waiter: each rank's list is filled in kernel order, its offsets counted on the way.
  for (const auto& [waiter, partner] : waits) {
    list_[waiter.rank].push_back(partner);
    ++begin_[waiter.rank][waiter.kernel + 1];
  }
  for (auto& b : begin_) {
    for (size_t k = 1; k < b.size(); ++k) b[k] += b[k - 1];
  }
}

}  // namespace bubblescope::analysis
