#pragma once
// A run analysed in shards (`analyze` under MPI): each process loads its share of the run's input
// files one at a time, recognises their ranks and keeps of each trace only what the analysis
// reads after recognition, as bytes; the process that analyses the job puts the shards together
// into the analysis a single process makes of the whole run. Pure apart from reading the files.
#include <cstdint>
#include <exception>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analyzer/analyze.h"
#include "traces/import/run_import.h"
#include "traces/model/byte_codec.h"

namespace bubblescope::cli {

// A rank's place in the run's input order: its file, then its place in the file.
struct InputPosition {
  uint64_t file = 0;
  uint64_t inFile = 0;
  auto operator<=>(const InputPosition&) const = default;
};

// One rank of a shard: its position, whether its trace held kernels, the trace as
// keepForAnalysis() leaves it and its ops whole, as bytes.
std::string shardEntry(const InputPosition& at, bool kernels, const traces::RankTrace& kept,
                       const analysis::RankOps& ops);
// A shard of the given entries (moved in), as recognizeShard makes one.
std::string shardOf(std::vector<std::string>&& entries);
// The same at the end of `out`, each entry freed once appended.
void appendShard(std::string& out, std::vector<std::string>&& entries);
// A shard that carries a failure met while making it: ShardAssembler throws it as met, an
// analysis input error (`badInput`) or another.
std::string failedShardOf(const std::exception& e);
// Reads a shard's header: throws the failure it carries (std::invalid_argument for bad input,
// else std::runtime_error), or for a shard of another version; leaves `r` at its entries.
void readShardHeader(traces::ByteReader& r);

// The ranks of `inputs.files[i]` for each i in `files`, recognised, as bytes. A file that cannot
// be read, or any other failure, is carried in the bytes (ShardAssembler says it), so that the
// process that made them still hands them on and no peer waits for it. Holds at most `threads`
// files' traces at once.
std::string recognizeShard(const traces::import::Inputs& inputs, const std::vector<size_t>& files,
                           const analysis::AnalyzeOptions& options);

// The process that analyses the job: shards taken one at a time as they arrive, then the analysis.
class ShardAssembler {
 public:
  // Decodes one shard; its bytes may go after. A shard that carries a failure (or does not
  // decode) is kept for analyze() to throw: this never throws, as it is called from MPI's side.
  void add(std::string_view shard) noexcept;
  // Whether a shard carried a failure (analyze() will throw it): the rest need not be read.
  bool failed() const { return failure_ != nullptr; }
  // The analysis of the run from the shards added, in any order. `paths` as the user gave them;
  // `wholeRun`: whether this process can read every file of the run, for a run without
  // recognised ops (read off its traffic or its utilization, from the whole run at once). Throws
  // what analyzeRun and loadAnyRun throw, and a shard's failure as the process that made it met
  // it.
  analysis::AnalysisResult analyze(const traces::import::Inputs& inputs,
                                   const std::vector<std::filesystem::path>& paths,
                                   const analysis::AnalyzeOptions& options, bool wholeRun);

 private:
  // Ranks by input position (file, place in the file), as loadAnyRun holds them before ordering.
  std::map<std::pair<uint64_t, uint64_t>, std::pair<traces::RankTrace, analysis::RankOps>> ranks_;
  bool kernels_ = false;
  std::exception_ptr failure_;
};

}  // namespace bubblescope::cli
