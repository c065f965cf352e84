#include "cli/analysis_shard.h"

#include <algorithm>
#include <stdexcept>

#include "analyzer/recognize/rank_ops_codec.h"
#include "traces/errors.h"
#include "traces/model/trace_codec.h"
#include "traces/parallel/parallel_for.h"

namespace bubblescope::cli {
namespace fs = std::filesystem;
namespace {

constexpr uint32_t kShardVersion = 2;
enum class ShardStatus : uint8_t { Ok = 0, BadInput = 1, Failed = 2 };

std::string failedShard(ShardStatus status, const std::string& what) {
  std::string out;
  traces::ByteWriter w(out);
  w.value(kShardVersion);
  w.value(status);
  w.text(what);
  return out;
}

// One file's ranks, recognised and kept for the analysis, as the shard's entries.
std::string recognizeFile(const traces::import::Inputs& inputs, size_t file, unsigned threads,
                          const analysis::RuleSets& rules) {
  std::vector<traces::RankTrace> ranks = traces::import::loadInputFile(inputs, file, threads);
  std::string out;
  for (size_t k = 0; k < ranks.size(); ++k) {
    traces::RankTrace& t = ranks[k];
    const analysis::RankOps ops = analysis::recognizeForAnalysis(t, rules.all);
    const bool kernels = t.kernels->size() > 0;
    analysis::keepForAnalysis(t);
    out += shardEntry({file, k}, kernels, t, ops);
    t = traces::RankTrace{};  // its events go before the next rank's are recognised
  }
  return out;
}

}  // namespace

std::string shardEntry(const InputPosition& at, bool kernels, const traces::RankTrace& kept,
                       const analysis::RankOps& ops) {
  std::string out;
  traces::ByteWriter w(out);
  w.value(at);
  w.value(kernels);
  traces::encodeRankTrace(kept, w);
  analysis::encodeRankOps(ops, w);
  return out;
}

void appendShard(std::string& out, std::vector<std::string>&& entries) {
  traces::ByteWriter w(out);
  w.value(kShardVersion);
  w.value(ShardStatus::Ok);
  size_t bytes = 0;
  for (const std::string& e : entries) bytes += e.size();
  out.reserve(out.size() + bytes);
  for (std::string& e : entries) {
    out += e;
    std::string().swap(e);
  }
}

std::string shardOf(std::vector<std::string>&& entries) {
  std::string out;
  appendShard(out, std::move(entries));
  return out;
}

std::string failedShardOf(const std::exception& e) {
  if (dynamic_cast<const traces::TraceError*>(&e) ||
      dynamic_cast<const std::invalid_argument*>(&e)) {
    return failedShard(ShardStatus::BadInput, e.what());
  }
  return failedShard(ShardStatus::Failed, e.what());
}

std::string recognizeShard(const traces::import::Inputs& inputs, const std::vector<size_t>& files,
                           const analysis::AnalyzeOptions& options) {
  try {
    const analysis::RuleSets rules(options.ruleFiles);
    std::vector<std::string> entries(files.size());
    const unsigned each = traces::threadsEach(files.size(), options.threads);
    traces::parallelFor(files.size(), options.threads, [&](size_t i) {
      entries[i] = recognizeFile(inputs, files[i], each, rules);
    });
    return shardOf(std::move(entries));
  } catch (const std::exception& e) {
    return failedShardOf(e);
  }
}

void readShardHeader(traces::ByteReader& r) {
  if (r.value<uint32_t>() != kShardVersion) {
    throw std::runtime_error("a shard of another bubblescope version");
  }
  const auto status = r.value<ShardStatus>();
  if (status == ShardStatus::BadInput) throw std::invalid_argument(r.text());
  if (status == ShardStatus::Failed) throw std::runtime_error(r.text());
}

void ShardAssembler::add(std::string_view shard) noexcept {
  if (failure_) return;
  try {
    traces::ByteReader r(shard);
    readShardHeader(r);
    while (!r.done()) {
      const auto at = r.value<InputPosition>();
      kernels_ = r.value<bool>() || kernels_;
      traces::RankTrace t = traces::decodeRankTrace(r);
      analysis::RankOps ops = analysis::decodeRankOps(r);
      ranks_.emplace(std::pair(at.file, at.inFile), std::pair(std::move(t), std::move(ops)));
    }
  } catch (...) {
    failure_ = std::current_exception();
  }
}

analysis::AnalysisResult ShardAssembler::analyze(const traces::import::Inputs& inputs,
                                                 const std::vector<fs::path>& paths,
                                                 const analysis::AnalyzeOptions& options,
                                                 bool wholeRun) {
  if (failure_) std::rethrow_exception(failure_);
  traces::Run run;
  run.dir = traces::import::runDirOf(inputs, paths);
  std::vector<analysis::RankOps> inputOrder;
  for (auto& [at, rank] : ranks_) {
    run.ranks.push_back(std::move(rank.first));
    inputOrder.push_back(std::move(rank.second));
  }
  ranks_.clear();
  std::vector<analysis::RankOps> ops;
  for (size_t i : traces::import::finishRun(run, inputs.format)) {
    ops.push_back(std::move(inputOrder[i]));
  }
  if (std::none_of(ops.begin(), ops.end(), [](const auto& o) { return !o.ops.empty(); })) {
    if (!wholeRun) {
      throw std::invalid_argument(
          run.dir.string() +
          ": no pipeline ops recognised, and a run without them is read off its NCCL traffic or "
          "its utilization, from every trace at once: analyse it in one process (without "
          "--local)");
    }
    return analysis::analyzeRun(traces::import::loadAnyRun(paths), options);
  }
  return analysis::analyzeRecognized(std::move(run), std::move(ops), kernels_, options);
}

}  // namespace bubblescope::cli
