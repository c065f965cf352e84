#include "analyzer/replicas/tp_groups.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <optional>

#include "analyzer/pipeline/topology.h"

namespace bubblescope::analysis {
namespace {

bool sameOps(const RankOps& a, const RankOps& b) {
  if (a.ops.size() != b.ops.size()) return false;
  for (size_t i = 0; i < a.ops.size(); ++i) {
    const Op& x = a.ops[i].op;
    const Op& y = b.ops[i].op;
    if (x.kind != y.kind || x.mb != y.mb || x.chunk != y.chunk) return false;
  }
  return true;
}

int tpRankOf(const traces::RankTrace& t, int fallback) {
  return gridRank(t, "BUBBLESCOPE_TP_RANK").value_or(fallback);
}

TpGroupResult foldGroup(const traces::Run& run, std::vector<RankOps>& ops,
                        const std::vector<size_t>& members, size_t repIndex, int dp, int stage,
                        std::vector<std::string>& warnings) {
  RankOps& rep = ops[repIndex];
  std::vector<const RankOps*> folded;
  TpGroupResult g;
  g.dp = dp;
  g.stage = stage;
  for (size_t m : members) {
    g.ranks.push_back(run.ranks[m].meta.rank);
    if (sameOps(ops[m], rep)) {
      folded.push_back(&ops[m]);
    } else {
      warnings.push_back("rank " + std::to_string(run.ranks[m].meta.rank) + " (DP " +
                         std::to_string(g.dp) + ", stage " + std::to_string(stage) +
                         ") ran other ops than its TP group: left out of the group's spans");
    }
  }
  // Per op: the group's span, and who ended last (the others wait for it in the op's
  // closing TP collective).
  std::map<int, int> lastCount;  // global rank -> ops it ended last in
  std::map<int, TimeNs> lag;
  TimeNs spreadSum = 0;
  for (size_t i = 0; i < rep.ops.size(); ++i) {
    TimeNs start = rep.ops[i].start, end = rep.ops[i].end, firstEnd = end, endSum = 0;
    int last = -1;
    TimeNs lastEnd = INT64_MIN;
    for (const RankOps* m : folded) {
      const RecognizedOp& o = m->ops[i];
      start = std::min(start, o.start);
      end = std::max(end, o.end);
      firstEnd = std::min(firstEnd, o.end);
      endSum += o.end;
      if (o.end > lastEnd) {
        lastEnd = o.end;
        last = static_cast<int>(m - ops.data());
      }
    }
    if (folded.size() < 2) break;
    const TimeNs spread = end - firstEnd;
    spreadSum += spread;
    g.maxSpread = std::max(g.maxSpread, spread);
    const int lastRank = run.ranks[static_cast<size_t>(last)].meta.rank;
    ++lastCount[lastRank];
    const TimeNs othersMean = (endSum - lastEnd) / static_cast<TimeNs>(folded.size() - 1);
    lag[lastRank] += lastEnd - othersMean;
    rep.ops[i].start = start;
    rep.ops[i].end = end;
    ++g.ops;
  }
  if (g.ops > 0) {
    g.meanSpread = spreadSum / g.ops;
    for (const auto& [rank, n] : lastCount) {
      const double share = static_cast<double>(n) / g.ops;
      if (share >= kSlowMemberShare && share > g.slowShare) {
        g.slowRank = rank;
        g.slowShare = share;
        g.slowLag = lag[rank] / n;
      }
    }
  }
  return g;
}

}  // namespace

std::vector<TpGroupResult> foldTpGroups(const Topology& topo, const traces::Run& run,
                                        std::vector<RankOps>& ops,
                                        std::vector<std::string>& warnings) {
  std::vector<TpGroupResult> out;
  for (size_t d = 0; d < topo.ranksOf.size(); ++d) {
    for (size_t s = 0; s < topo.ranksOf[d].size(); ++s) {
      std::vector<size_t> members = topo.ranksOf[d][s];
      if (members.size() < 2) continue;
      std::stable_sort(members.begin(), members.end(), [&](size_t a, size_t b) {
        return tpRankOf(run.ranks[a], static_cast<int>(a)) <
               tpRankOf(run.ranks[b], static_cast<int>(b));
      });
      out.push_back(foldGroup(run, ops, members, topo.ranksOf[d][s].front(), topo.dpRanks[d],
                              static_cast<int>(s), warnings));
    }
  }
  return out;
}

std::vector<std::vector<size_t>> tpGroupsFromMetadata(const traces::Run& run) {
  std::map<std::pair<int, int>, std::vector<std::pair<int, size_t>>> byPlace;
  for (size_t i = 0; i < run.ranks.size(); ++i) {
    const auto dp = gridRank(run.ranks[i], "BUBBLESCOPE_DP_RANK");
    const auto pp = gridRank(run.ranks[i], "BUBBLESCOPE_PP_RANK");
    const auto tp = gridRank(run.ranks[i], "BUBBLESCOPE_TP_RANK");
    if (!dp || !pp || !tp) return {};
    byPlace[{*dp, *pp}].push_back({*tp, i});
  }
  std::vector<size_t> all(run.ranks.size());
  std::iota(all.begin(), all.end(), size_t{0});
  requireOnePlaceEach(run, all);
  std::vector<std::vector<size_t>> out;
  bool any = false;
  for (auto& [place, members] : byPlace) {
    std::sort(members.begin(), members.end());
    out.emplace_back();
    for (const auto& [tp, i] : members) out.back().push_back(i);
    any = any || members.size() > 1;
  }
  if (!any) return {};
  return out;
}

TpGroupResult foldEarly(const traces::Run& run, std::vector<RankOps>& ops,
                        const std::vector<size_t>& members, std::vector<std::string>& warnings) {
  const traces::RankTrace& first = run.ranks[members.front()];
  TpGroupResult g = foldGroup(run, ops, members, members.front(),
                              gridRank(first, "BUBBLESCOPE_DP_RANK").value_or(0),
                              gridRank(first, "BUBBLESCOPE_PP_RANK").value_or(0), warnings);
  for (size_t k = 1; k < members.size(); ++k) ops[members[k]] = RankOps{};
  return g;
}

}  // namespace bubblescope::analysis
