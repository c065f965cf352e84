#include "traces/sqlite/group_correlations.h"

#include <algorithm>
#include <unordered_map>
#include <vector>

#include "traces/format/nccl_ids.h"

namespace bubblescope::traces {

void tieGroupKernelsToCalls(RankTrace& t) {
  if (t.meta.source != "bubblescope-agent") return;
  std::unordered_map<uint64_t, std::vector<uint64_t>> members;  // block -> call ids
  const NcclCalls& calls = t.ncclCalls;
  for (size_t i = 0; i < calls.size(); ++i) {
    // A nested group's own start and end, or a communicator made inside the group, launch nothing.
    if (isNcclGroupMemberId(calls.id[i]) && movesData(calls.op[i])) {
      members[ncclGroupBlock(calls.id[i])].push_back(calls.id[i]);
    }
  }
  if (members.empty()) return;
  for (auto& [block, ids] : members) std::sort(ids.begin(), ids.end());
  Correlations& c = t.correlations;
  const size_t rows = c.size();
  for (size_t i = 0; i < rows; ++i) {
    if (c.externalKind[i] != ExternalKind::NcclCall || !isNcclGroupEndId(c.externalId[i])) continue;
    auto it = members.find(ncclGroupBlock(c.externalId[i]));
    if (it == members.end()) continue;
    for (uint64_t id : it->second) {
      c.correlation.push_back(c.correlation[i]);
      c.externalKind.push_back(ExternalKind::NcclCall);
      c.externalId.push_back(id);
    }
  }
}

}  // namespace bubblescope::traces
