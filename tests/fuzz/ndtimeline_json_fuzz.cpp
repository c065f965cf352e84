// libFuzzer target: any bytes as an NDTimeline timeline (Megatron-LM's, Chrome JSON), loaded into
// a run as `bubblescope analyze FILE.json` loads one, then read as far as its metadata goes: the
// TP groups, the ops and the grid (DP, PP, TP rank of every rank) the analysis builds first. Bad
// input must end in a TraceError (the importer) or an AnalysisInputError (the grid).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/pipeline/topology.h"
#include "analyzer/recognize/recognizer.h"
#include "analyzer/replicas/tp_groups.h"
#include "analyzer/result/errors.h"
#include "traces/errors.h"
#include "traces/import/chrome_json/chrome_trace_import.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace bubblescope;
  traces::import::ByteSource source(std::string_view(reinterpret_cast<const char*>(data), size),
                                    "fuzz.json");
  try {
    traces::Run run;
    run.dir = "fuzz.json";
    traces::import::ImportedFile f = traces::import::importChromeTrace(source);
    for (traces::RankTrace& t : f.ranks) run.ranks.push_back(std::move(t));
    // As importRun orders them: ranks that say their rank first, by rank.
    std::stable_sort(run.ranks.begin(), run.ranks.end(), [](const auto& a, const auto& b) {
      const bool aRanked = a.meta.rank >= 0, bRanked = b.meta.rank >= 0;
      if (aRanked != bRanked) return aRanked;
      return aRanked && a.meta.rank < b.meta.rank;
    });

    // The analysis's first steps (analyzer/analyze.cpp): TP groups from metadata, each folded
    // once its members are recognised, then the grid.
    std::vector<const analysis::RuleSet*> sets;
    for (const analysis::RuleSet& s : analysis::builtinRuleSets()) sets.push_back(&s);
    std::vector<analysis::RankOps> ops;
    for (const traces::RankTrace& t : run.ranks) ops.push_back(analysis::recognize(t, sets));
    std::vector<std::string> warnings;
    for (const std::vector<size_t>& group : analysis::tpGroupsFromMetadata(run)) {
      if (group.size() > 1) analysis::foldEarly(run, ops, group, warnings);
    }
    if (std::none_of(ops.begin(), ops.end(), [](const auto& o) { return !o.ops.empty(); })) {
      return 0;  // no labelled ops: the analysis would read the NCCL traffic instead
    }
    const analysis::Topology topo = analysis::buildTopology(run, ops);
    // A grid, or an error: the analysis reads its first stage's ranks next.
    if (topo.ranksOf.empty() || topo.ranksOf[0].empty() || topo.ranksOf[0][0].empty()) {
      __builtin_trap();
    }
  } catch (const traces::TraceError&) {
    // The importer's one way for bad input to end.
  } catch (const analysis::AnalysisInputError&) {
    // The grid's: ranks that form no pipeline.
  }
  return 0;
}
