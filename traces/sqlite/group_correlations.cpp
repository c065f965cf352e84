#include "traces/sqlite/group_correlations.h"

#include <algorithm>
#include <unordered_map>
#include <vector>

#include "traces/format/nccl_ids.h"

namespace bubblescope::traces {
namespace {

// Calls that put data on a kernel; a nested group's own start and end, or a communicator made
// inside the group, do not.
bool communicates(NcclOp op) {
  switch (op) {
    case NcclOp::Send:
    case NcclOp::Recv:
    case NcclOp::AllReduce:
    case NcclOp::AllGather:
    case NcclOp::ReduceScatter:
    case NcclOp::Broadcast:
    case NcclOp::Reduce:
    case NcclOp::AllToAll:
      return true;
    default:
      return false;
  }
}

}  // namespace

void tieGroupKernelsToCalls(RankTrace& t) {
  if (t.meta.source != "bubblescope-agent") return;
  std::unordered_map<uint64_t, std::vector<uint64_t>> members;  // block -> call ids
  const NcclCalls& calls = t.ncclCalls;
  for (size_t i = 0; i < calls.size(); ++i) {
    if (isNcclGroupMemberId(calls.id[i]) && communicates(calls.op[i])) {
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
