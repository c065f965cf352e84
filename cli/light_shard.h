#pragma once
// `analyze` under MPI with each replica analysed where its ranks are (analyzer/owned_analysis.h):
// each process keeps its files' ranks whole, as shard entries (analysis_shard.h), and sends the
// coordinator (MPI rank 0) only what it plans by, their light parts: planningTraceOf,
// planningPartOf, placeOf and stepsWithOps (analyze.h) and the communicators each rank used
// (split_matching.h, rosterOf). Their NCCL calls and kernels stay where they are.
// Pure apart from reading the files.
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/analyze.h"
#include "analyzer/pipeline/topology.h"
#include "analyzer/replicas/split_matching.h"
#include "cli/analysis_shard.h"
#include "traces/import/run_import.h"

namespace bubblescope::cli {

// A process's share of the run's ranks: each kept whole (a shard entry, by input position), and
// their light parts as one shard for the coordinator (which carries a failure, as
// recognizeShard's do: the process still hands it on).
struct RecognisedShare {
  std::map<InputPosition, std::string> held;
  std::string light;
};
RecognisedShare recognizeHeld(const traces::import::Inputs& inputs,
                              const std::vector<size_t>& files,
                              const analysis::AnalyzeOptions& options);

// The coordinator's view of the run: every rank's planning part, in run order.
struct LightRun {
  traces::Run run;
  std::vector<analysis::RankOps> light;
  std::vector<analysis::CommRoster> rosters;
  std::vector<analysis::RankPlace> places;
  std::vector<std::vector<int64_t>> steps;
  std::vector<InputPosition> positions;  // each rank's input position
  bool kernels = false;                  // any rank's trace held kernels
};

// Light shards taken as they arrive (as ShardAssembler takes shards), then the run.
class LightAssembler {
 public:
  void add(std::string_view shard) noexcept;  // never throws: called from MPI's side
  bool failed() const { return failure_ != nullptr; }
  // Throws a shard's failure as the process that made it met it, and what finishRun throws.
  LightRun finish(const traces::import::Inputs& inputs,
                  const std::vector<std::filesystem::path>& paths);

 private:
  struct Entry {
    traces::RankTrace trace;
    analysis::RankOps light;
    analysis::CommRoster roster;
    analysis::RankPlace place;
    std::vector<int64_t> steps;
  };
  std::map<InputPosition, Entry> ranks_;
  bool kernels_ = false;
  std::exception_ptr failure_;
};

}  // namespace bubblescope::cli
