#include "analyzer/pipeline/topology.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <set>

#include "analyzer/result/errors.h"

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
      throw AnalysisInputError(run.dir.string() + ": traces of two runs are mixed here (" +
                               fileName(*first) + " and " + fileName(t) +
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
    ++votes[c.send ? c.peer - 1 : c.peer + 1];
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

std::optional<int> extraInt(const traces::RankTrace& t, const char* key) {
  auto it = t.meta.extra.find(key);
  if (it == t.meta.extra.end()) return std::nullopt;
  int v = 0;
  const std::string& s = it->second;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

Topology buildTopology(const traces::Run& run, const std::vector<RankOps>& ops) {
  Topology topo;
  std::vector<size_t> piped;
  for (size_t i = 0; i < run.ranks.size(); ++i) {
    (ops[i].ops.empty() ? topo.outside : piped).push_back(i);
  }
  if (piped.empty()) {
    throw AnalysisInputError(run.dir.string() + ": no pipeline ops in any of the " +
                             std::to_string(run.ranks.size()) + " traces");
  }
  requireOneRun(run, piped);

  // (dp, stage) of every rank, from the best source that covers them all.
  std::vector<std::pair<int, int>> place(run.ranks.size(), {-1, -1});
  std::optional<int> ppSize;
  size_t ppSizeFrom = 0;  // the rank that said it
  bool all = true;
  for (size_t i : piped) {
    auto s = extraInt(run.ranks[i], "BUBBLESCOPE_PP_RANK");
    if (!s) {
      all = false;
      break;
    }
    place[i] = {extraInt(run.ranks[i], "BUBBLESCOPE_DP_RANK").value_or(0), *s};
    if (auto p = extraInt(run.ranks[i], "BUBBLESCOPE_PP_SIZE")) {
      ppSize = *p;
      ppSizeFrom = i;
    }
  }
  topo.source = "metadata";
  auto fromPerRank = [&](const char* source, auto stageOf) {
    for (size_t i : piped) {
      auto s = stageOf(i);
      if (!s) return false;
      place[i] = {-1, *s};
    }
    topo.source = source;
    return true;
  };
  if (!all && !fromPerRank("labels", [&](size_t i) { return ops[i].stageFromLabels; }) &&
      !fromPerRank("p2p", [&](size_t i) { return stageFromPeers(ops[i]); })) {
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
  // A size read from a trace is checked before it sizes anything (issue 28): a pipeline's stages
  // are checked against the ranks that say they hold them, and only a pipeline with a rank for
  // every stage (so no longer than the run's ranks) is laid out.
  const int64_t pp = ppSize ? int64_t{*ppSize} : int64_t{maxStage} + 1;
  if (pp < 1) {
    throw AnalysisInputError(run.dir.string() + ": " + fileName(run.ranks[ppSizeFrom]) +
                             " says extra.BUBBLESCOPE_PP_SIZE = " + std::to_string(pp) +
                             ": a pipeline has at least one stage");
  }
  for (auto& [dp, stages] : grid) {
    int64_t next = 0;  // the first stage not yet seen
    for (auto& [stage, ranks] : stages) {
      if (stage < 0 || stage >= pp) {
        throw AnalysisInputError(run.dir.string() + ": " + fileName(run.ranks[ranks[0]]) +
                                 " says stage " + std::to_string(stage) + " of a " +
                                 std::to_string(pp) + "-stage pipeline");
      }
      if (stage > next) break;
      next = stage + 1;
    }
    if (next < pp) {
      throw AnalysisInputError(run.dir.string() + ": missing ranks: pipeline " +
                               std::to_string(dp) + " has no trace for stage " +
                               std::to_string(next) + " of " + std::to_string(pp));
    }
  }
  topo.pp = static_cast<int>(pp);  // every stage has a rank: pp <= the run's ranks
  for (auto& [dp, stages] : grid) {
    std::vector<std::vector<size_t>> row(topo.pp);
    for (auto& [stage, ranks] : stages) {
      // The slowest rank of a TP group represents the stage.
      std::stable_sort(ranks.begin(), ranks.end(),
                       [&](size_t a, size_t b) { return busyTime(ops[a]) > busyTime(ops[b]); });
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
