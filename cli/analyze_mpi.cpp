#include "cli/analyze_mpi.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <thread>

#include "cli/analysis_shard.h"
#include "cli/file_assignment.h"
#include "cli/mpi_job.h"
#include "cli/run_loading.h"
#include "cli/usage_error.h"
#include "traces/errors.h"
#include "traces/import/run_import.h"

namespace bubblescope::cli {
namespace {

namespace fs = std::filesystem;

// Listing is quick: a process that has not listed within this died or hangs.
constexpr double kListingTimeoutS = 120;
// Loading and recognising a share of a large run takes minutes; a process silent for this long
// after rank 0 is done with its own share is taken as lost (a launcher that does not end the job).
constexpr double kShardTimeoutS = 4 * 3600;

// The files this process can read of the paths given. With `local`, a path this node does not
// have holds none of the run here (another node's files).
Listing listFiles(const AnalyzeOptions& o) {
  Listing out;
  try {
    refuseOwnOutputs(o.paths);
    for (size_t a = 0; a < o.paths.size(); ++a) {
      const fs::path p = o.paths[a];
      std::error_code ec;
      if (o.local && !fs::exists(p, ec)) continue;
      const traces::import::Inputs in = traces::import::resolveInputs({p});
      if (out.format != traces::import::InputFormat::Unknown && in.format != out.format) {
        // As the single process says it for the whole list.
        traces::import::resolveInputs({o.paths.begin(), o.paths.begin() + a + 1});
      }
      out.format = in.format;
      for (const fs::path& f : in.files) {
        const auto bytes = fs::file_size(f, ec);
        out.files.push_back({static_cast<uint32_t>(a), f.string(), ec ? 0 : bytes});
      }
    }
  } catch (const std::exception& e) {
    out.error = e.what();
  }
  return out;
}

// Cores for each process of this node: the launcher says how many share it.
unsigned threadsEach() {
  unsigned local = 1;
  for (const char* v : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "SLURM_NTASKS_PER_NODE"}) {
    if (const char* s = std::getenv(v); s && std::atoi(s) > 0) {
      local = static_cast<unsigned>(std::atoi(s));
      break;
    }
  }
  return std::max(1u, std::thread::hardware_concurrency() / local);
}

// BUBBLESCOPE_MPI_PHASES=1: where rank 0's time went, on stderr (docs/benchmarks.md).
class PhaseClock {
 public:
  PhaseClock() : on_(std::getenv("BUBBLESCOPE_MPI_PHASES") != nullptr) {}
  void lap(const char* what) {
    const auto now = std::chrono::steady_clock::now();
    if (on_) {
      std::fprintf(stderr, "bubblescope: %.3f s %s\n",
                   std::chrono::duration<double>(now - last_).count(), what);
    }
    last_ = now;
  }

 private:
  bool on_;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

}  // namespace

std::optional<analysis::AnalysisResult> analyzeAcrossProcesses(
    const AnalyzeOptions& o, const analysis::AnalyzeOptions& options, const std::string& launcher,
    int launcherSize) {
  PhaseClock clock;
  const std::unique_ptr<MpiJob> job = MpiJob::start(launcher, "analyze");
  if (job->size() != launcherSize) {
    job->finalize();
    throw UsageError("the launcher started " + std::to_string(launcherSize) + " processes (" +
                     launcher + ") but MPI sees " + std::to_string(job->size()) +
                     ": start analyze with the MPI's own launcher (mpirun) or srun --mpi=pmix");
  }
  // Round 1: what each process can read; rank 0 says who reads what.
  const std::vector<std::string> listed =
      job->gatherToRoot(encodeListing(listFiles(o)), kListingTimeoutS);
  std::string plan;
  if (job->rank() == 0) {
    std::vector<Listing> listings;
    for (const std::string& l : listed) listings.push_back(decodeListing(l));
    plan = encodeAssignment(assignFiles(listings, o.local));
  }
  const Assignment assignment = decodeAssignment(job->broadcastFromRoot(plan, kListingTimeoutS));
  clock.lap("listed and assigned");
  if (!assignment.error.empty()) {
    job->finalize();
    if (job->rank() != 0) return std::nullopt;
    throw std::invalid_argument(assignment.error);
  }
  traces::import::Inputs inputs;
  inputs.format = assignment.format;
  for (const std::string& f : assignment.files) inputs.files.push_back(f);
  {
    // The run's directory, as the single process names it in the reports.
    const fs::path first = o.paths.front();
    std::error_code ec;
    inputs.dir = first;
    if (inputs.files.size() > 1 && !fs::is_directory(first, ec)) {
      inputs.dir = first.parent_path().empty() ? fs::path(".") : first.parent_path();
    }
  }
  // Round 2: each process its files, recognised; rank 0 the job.
  analysis::AnalyzeOptions mine = options;
  if (mine.threads == 0) mine.threads = threadsEach();
  std::string shard =
      recognizeShard(inputs, assignment.byProcess[static_cast<size_t>(job->rank())], mine);
  clock.lap("own files loaded and recognised");
  std::vector<std::string> shards = job->gatherToRoot(shard, kShardTimeoutS);
  std::string().swap(shard);
  clock.lap("shards gathered (waiting for the others included)");
  job->finalize();
  if (job->rank() != 0) return std::nullopt;
  analysis::AnalysisResult result =
      analyzeShards(inputs, {o.paths.begin(), o.paths.end()}, std::move(shards), options, !o.local);
  clock.lap("shards decoded and the job analysed");
  return result;
}

}  // namespace bubblescope::cli
