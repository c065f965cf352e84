#include "cli/light_shard.h"

#include <mutex>
#include <utility>

#include "analyzer/pipeline/pipeline_trace.h"
#include "analyzer/recognize/rank_ops_codec.h"
#include "analyzer/replicas/split_matching.h"
#include "traces/model/trace_codec.h"
#include "traces/parallel/parallel_for.h"

namespace bubblescope::cli {
namespace {

// A rank's light entry: what the coordinator reads of it.
std::string lightEntry(const InputPosition& at, bool kernels, const traces::RankTrace& kept,
                       const analysis::RankOps& ops) {
  std::string out;
  traces::ByteWriter w(out);
  w.value(at);
  w.value(kernels);
  traces::encodeRankTrace(analysis::planningTraceOf(kept), w);
  analysis::encodeRankOps(analysis::planningPartOf(ops), w);
  analysis::encodeCommRoster(analysis::rosterOf(kept, ops), w);
  w.value(analysis::placeOf(ops));
  w.column(analysis::stepsWithOps(ops));
  return out;
}

}  // namespace

RecognisedShare recognizeHeld(const traces::import::Inputs& inputs,
                              const std::vector<size_t>& files,
                              const analysis::AnalyzeOptions& options) {
  RecognisedShare out;
  try {
    const analysis::RuleSets rules(options.ruleFiles);
    std::vector<std::string> light(files.size());
    std::mutex mutex;
    const unsigned each = traces::threadsEach(files.size(), options.threads);
    traces::parallelFor(files.size(), options.threads, [&](size_t i) {
      std::vector<traces::RankTrace> ranks = traces::import::loadInputFile(inputs, files[i], each);
      for (size_t k = 0; k < ranks.size(); ++k) {
        traces::RankTrace& t = ranks[k];
        const InputPosition at{files[i], k};
        const analysis::RankOps ops = analysis::recognizeForAnalysis(t, rules.all);
        const bool kernels = t.kernels->size() > 0;
        analysis::keepForAnalysis(t);
        light[i] += lightEntry(at, kernels, t, ops);
        std::string whole = shardEntry(at, kernels, t, ops);
        t = traces::RankTrace{};  // its events go before the next rank's are recognised
        std::lock_guard lock(mutex);
        out.held.emplace(at, std::move(whole));
      }
    });
    out.light = shardOf(std::move(light));
  } catch (const std::exception& e) {
    out.light = failedShardOf(e);
  }
  return out;
}

void LightAssembler::add(std::string_view shard) noexcept {
  if (failure_) return;
  try {
    traces::ByteReader r(shard);
    readShardHeader(r);
    while (!r.done()) {
      const auto at = r.value<InputPosition>();
      kernels_ = r.value<bool>() || kernels_;
      Entry e;
      e.trace = traces::decodeRankTrace(r);
      e.light = analysis::decodeRankOps(r);
      e.roster = analysis::decodeCommRoster(r);
      e.place = r.value<analysis::RankPlace>();
      r.column(e.steps);
      ranks_.emplace(at, std::move(e));
    }
  } catch (...) {
    failure_ = std::current_exception();
  }
}

LightRun LightAssembler::finish(const traces::import::Inputs& inputs,
                                const std::vector<std::filesystem::path>& paths) {
  if (failure_) std::rethrow_exception(failure_);
  LightRun out;
  out.kernels = kernels_;
  out.run.dir = traces::import::runDirOf(inputs, paths);
  std::vector<Entry> inputOrder;
  std::vector<InputPosition> positions;
  for (auto& [at, e] : ranks_) {
    out.run.ranks.push_back(std::move(e.trace));
    inputOrder.push_back(std::move(e));
    positions.push_back(at);
  }
  ranks_.clear();
  for (size_t i : traces::import::finishRun(out.run, inputs.format)) {
    out.light.push_back(std::move(inputOrder[i].light));
    out.rosters.push_back(std::move(inputOrder[i].roster));
    out.places.push_back(inputOrder[i].place);
    out.steps.push_back(std::move(inputOrder[i].steps));
    out.positions.push_back(positions[i]);
  }
  return out;
}

}  // namespace bubblescope::cli
