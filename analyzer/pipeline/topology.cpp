#include "analyzer/pipeline/topology.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "analyzer/result/errors.h"
#include "traces/files/path_names.h"

namespace bubblescope::analysis {
namespace {

std::string fileName(const traces::RankTrace& t) {
  return t.file.filename().string();
}

// Traces of two jobs in one directory would be analysed as one pipeline: refuse.
void requireOneRun(const traces::Run& run, const std::vector<size_t>& ranks) {
  const traces::RankTrace* first = nullptr;
  for (size_t i : ranks) {
    const auto& t = run.ranks[i];
    if (!first) {
      first = &t;
      continue;
    }
    const bool runIds = !first->meta.runId.empty() && !t.meta.runId.empty();
    if ((runIds && first->meta.runId != t.meta.runId) ||
        (first->meta.worldSize > 0 && t.meta.worldSize > 0 &&
         first->meta.worldSize != t.meta.worldSize)) {
      const auto [a, b] = traces::distinctNames(first->file, t.file);
      throw AnalysisInputError(run.dir.string() + ": traces of two runs are mixed here (" + a +
                               " and " + b +
                               " differ in run id or world size); give each run its own directory");
    }
  }
}

// Stage of a rank from the stage ids its transfers name (bubblescope labels): activations of
// chunk 0 go from stage s to s+1.
std::optional<int> stageFromPeers(const RankOps& ops) {
  std::map<int, int> votes;
  for (const auto& c : ops.comms) {
    if (c.peer < 0 || c.chunk != 0 || c.pass != OpKind::F) continue;
    const int64_t stage = c.send ? int64_t{c.peer} - 1 : int64_t{c.peer} + 1;
    if (stage >= 0 && stage <= kMaxGridRank) ++votes[static_cast<int>(stage)];
  }
  if (votes.empty()) return std::nullopt;
  return std::max_element(votes.begin(), votes.end(),
                          [](auto& a, auto& b) { return a.second < b.second; })
      ->first;
}

TimeNs busyTime(const RankOps& ops) {
  TimeNs n = 0;
  for (const auto& o : ops.ops) n += o.end - o.start;
  return n;
}

}  // namespace

std::optional<int> extraInt(const traces::RankTrace& t, const char* key, int lo, int hi) {
  auto it = t.meta.extra.find(key);
  if (it == t.meta.extra.end()) return std::nullopt;
  int64_t v = 0;
  const std::string& s = it->second;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size() || s.empty() || v < lo || v > hi) {
    throw AnalysisInputError(t.file.string() + ": meta " + key + " = '" + s +
                             "' is not a whole number from " + std::to_string(lo) + " to " +
                             std::to_string(hi));
  }
  return static_cast<int>(v);
}

void checkGridMetadata(const traces::RankTrace& t) {
  for (const char* key : {"BUBBLESCOPE_DP_RANK", "BUBBLESCOPE_PP_RANK", "BUBBLESCOPE_TP_RANK"}) {
    gridRank(t, key);
  }
  extraInt(t, "BUBBLESCOPE_PP_SIZE", 1, INT32_MAX);
}

void requireOnePlaceEach(const traces::Run& run, const std::vector<size_t>& ranks) {
  std::map<std::tuple<int, int, int>, size_t> at;  // (dp, pp, tp) -> rank index
  for (size_t i : ranks) {
    const auto pp = gridRank(run.ranks[i], "BUBBLESCOPE_PP_RANK");
    const auto tp = gridRank(run.ranks[i], "BUBBLESCOPE_TP_RANK");
    if (!pp || !tp) continue;
    const int dp = gridRank(run.ranks[i], "BUBBLESCOPE_DP_RANK").value_or(0);
    auto [it, fresh] = at.try_emplace({dp, *pp, *tp}, i);
    if (fresh) continue;
    const auto [a, b] = traces::distinctNames(run.ranks[it->second].file, run.ranks[i].file);
    throw AnalysisInputError(run.dir.string() + ": " + a + " and " + b + " both say DP rank " +
                             std::to_string(dp) + ", PP rank " + std::to_string(*pp) +
                             ", TP rank " + std::to_string(*tp) +
                             " (BUBBLESCOPE_DP_RANK, _PP_RANK and _TP_RANK)");
  }
}

RankPlace placeOf(const RankOps& ops) {
  return {!ops.ops.empty(), ops.stageFromLabels, stageFromPeers(ops), busyTime(ops)};
}

Topology buildTopology(const traces::Run& run, const std::vector<RankOps>& ops) {
  std::vector<RankPlace> places;
  places.reserve(ops.size());
  for (const RankOps& o : ops) places.push_back(placeOf(o));
  return buildTopology(run, places);
}

Topology buildTopology(const traces::Run& run, const std::vector<RankPlace>& places) {
  Topology topo;
  std::vector<size_t> piped;
  for (size_t i = 0; i < run.ranks.size(); ++i) {
    (places[i].hasOps ? piped : topo.outside).push_back(i);
  }
  if (piped.empty()) {
    throw AnalysisInputError(run.dir.string() + ": no pipeline ops in any of the " +
                             std::to_string(run.ranks.size()) + " traces");
  }
  requireOneRun(run, piped);

  // (dp, stage) of every rank, from the best source that covers them all.
  std::vector<std::pair<int, int>> place(run.ranks.size(), {-1, -1});
  std::optional<int> ppSize;
  bool all = true;
  for (size_t i : piped) {
    auto s = gridRank(run.ranks[i], "BUBBLESCOPE_PP_RANK");
    if (!s) {
      all = false;
      break;
    }
    place[i] = {gridRank(run.ranks[i], "BUBBLESCOPE_DP_RANK").value_or(0), *s};
    if (auto p = extraInt(run.ranks[i], "BUBBLESCOPE_PP_SIZE", 1, INT32_MAX)) ppSize = *p;
  }
  topo.source = "metadata";
  if (all) requireOnePlaceEach(run, piped);
  auto fromPerRank = [&](const char* source, auto stageOf) {
    for (size_t i : piped) {
      auto s = stageOf(i);
      if (!s) return false;
      place[i] = {-1, *s};
    }
    topo.source = source;
    return true;
  };
  if (!all && !fromPerRank("labels", [&](size_t i) { return places[i].stageFromLabels; }) &&
      !fromPerRank("p2p", [&](size_t i) { return places[i].stageFromPeers; })) {
    // Nothing says: stages in rank order, one pipeline.
    for (size_t k = 0; k < piped.size(); ++k) place[piped[k]] = {0, static_cast<int>(k)};
    topo.source = "rank order";
    if (piped.size() > 1) {
      topo.warnings.push_back(
          "no stage ids in metadata, labels or transfers: stages taken in rank order");
    }
  }
  // Labels and transfers give stages, not replicas: repeated stage ids are further DP replicas,
  // in rank order.
  if (place[piped[0]].first < 0) {
    std::map<int, int> seen;
    for (size_t i : piped) place[i].first = seen[place[i].second]++;
  }

  std::map<int, std::map<int, std::vector<size_t>>> grid;  // dp -> stage -> ranks
  for (size_t i : piped) grid[place[i].first][place[i].second].push_back(i);
  int maxStage = 0;
  for (auto& [dp, stages] : grid) maxStage = std::max(maxStage, stages.rbegin()->first);
  // A stage of INT32_MAX (from a label) has no size that fits: it is refused below as beyond it.
  topo.pp = ppSize.value_or(maxStage < INT32_MAX ? maxStage + 1 : INT32_MAX);
  for (auto& [dp, stages] : grid) {
    // Every stage needs a trace: the first without one, found before a row of pp is made (a
    // PP size of 2^31 - 1 would be 48 GB of empty stages).
    int missing = 0;
    for (auto& [stage, ranks] : stages) {
      if (stage < 0 || stage >= topo.pp) {
        throw AnalysisInputError(run.dir.string() + ": " + fileName(run.ranks[ranks[0]]) +
                                 " says stage " + std::to_string(stage) + " of a " +
                                 std::to_string(topo.pp) + "-stage pipeline");
      }
      if (stage == missing) ++missing;
    }
    if (missing < topo.pp) {
      throw AnalysisInputError(run.dir.string() + ": missing ranks: pipeline " +
                               std::to_string(dp) + " has no trace for stage " +
                               std::to_string(missing) + " of " + std::to_string(topo.pp));
    }
    std::vector<std::vector<size_t>> row(topo.pp);
    for (auto& [stage, ranks] : stages) {
      // The slowest rank of a TP group represents the stage.
      std::stable_sort(ranks.begin(), ranks.end(),
                       [&](size_t a, size_t b) { return places[a].busyTime > places[b].busyTime; });
      topo.tp = std::max<int>(topo.tp, static_cast<int>(ranks.size()));
      row[stage] = ranks;
    }
    topo.ranksOf.push_back(std::move(row));
    topo.dpRanks.push_back(dp);
  }
  topo.dp = static_cast<int>(topo.ranksOf.size());
  return topo;
}

}  // namespace bubblescope::analysis
