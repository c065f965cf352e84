#include "cli/analyze_mpi.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <thread>

#include "cli/analysis_shard.h"
#include "cli/file_assignment.h"
#include "cli/light_shard.h"
#include "cli/mpi_job.h"
#include "cli/owned_rounds.h"
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

// The files this process can read of the paths given, and how many it loads at once. With
// `local`, a path this node does not have holds none of the run here (another node's files).
Listing listFiles(const AnalyzeOptions& o, unsigned atOnce) {
  Listing out;
  out.filesAtOnce = atOnce;
  try {
    for (size_t a = 0; a < o.paths.size(); ++a) {
      const fs::path p = o.paths[a];
      std::error_code ec;
      if (o.local && !fs::exists(p, ec)) continue;
      refuseOwnOutputs({o.paths[a]});
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

// BUBBLESCOPE_MPI_PHASES=1: where each process's time went and what it held, on stderr
// (docs/benchmarks.md).
class PhaseClock {
 public:
  PhaseClock() : on_(std::getenv("BUBBLESCOPE_MPI_PHASES") != nullptr) {}
  void lap(const char* what) {
    const auto now = std::chrono::steady_clock::now();
    if (on_) {
      std::fprintf(stderr, "bubblescope: %.3f s %s (%s)\n",
                   std::chrono::duration<double>(now - last_).count(), what, memory().c_str());
    }
    last_ = now;
  }

 private:
  // This process's peak and present resident memory, as the kernel counts them.
  static std::string memory() {
    long peak = -1, now = -1;
    if (FILE* f = std::fopen("/proc/self/status", "r")) {
      char line[256];
      while (std::fgets(line, sizeof line, f)) {
        std::sscanf(line, "VmHWM: %ld kB", &peak);
        std::sscanf(line, "VmRSS: %ld kB", &now);
      }
      std::fclose(f);
    }
    return "peak " + std::to_string(peak >> 10) + " MiB, now " + std::to_string(now >> 10) + " MiB";
  }

  bool on_;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

}  // namespace

std::optional<analysis::AnalysisResult> analyzeAcrossProcesses(
    const AnalyzeOptions& o, const analysis::AnalyzeOptions& options, const std::string& launcher,
    int launcherSize) {
  PhaseClock clock;
  const std::unique_ptr<MpiJob> job = MpiJob::start(launcher, launcherSize, "analyze");
  clock.lap("MPI started (the plugin loaded, MPI_Init)");
  analysis::AnalyzeOptions mine = options;
  if (mine.threads == 0) mine.threads = threadsEach();
  // Round 1: what each process can read; rank 0 says who reads what, in how many rounds.
  const std::vector<std::string> listed =
      job->gatherToRoot(encodeListing(listFiles(o, mine.threads)), kListingTimeoutS);
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
  // From the names alone: rank 0 need not have the path (--local).
  inputs.dir = traces::import::inputsDir(o.paths.front(), inputs.files);
  // Then each process its files, in the assignment's rounds (at most kMostRounds, `threads` at a
  // time), keeping their ranks whole; rank 0 takes each round's light parts as they come
  // (owned_rounds.h: the ranks move once the run is planned).
  const std::vector<size_t>& files = assignment.byProcess[static_cast<size_t>(job->rank())];
  const size_t rounds = assignment.rounds;
  const size_t perRound =
      std::max<size_t>({1, mine.threads, rounds > 0 ? (files.size() + rounds - 1) / rounds : 0});
  RecognisedShare share;
  LightAssembler light;
  size_t bytes = 0;
  std::chrono::steady_clock::duration recognising{}, exchanging{};
  for (size_t round = 0; round < rounds; ++round) {
    const size_t from = std::min(files.size(), round * perRound);
    const std::vector<size_t> now(
        files.begin() + static_cast<std::ptrdiff_t>(from),
        files.begin() + static_cast<std::ptrdiff_t>(std::min(files.size(), from + perRound)));
    const auto begin = std::chrono::steady_clock::now();
    RecognisedShare part;
    if (!now.empty()) part = recognizeHeld(inputs, now, mine);
    share.held.merge(part.held);
    const auto recognised = std::chrono::steady_clock::now();
    job->gatherToRoot(part.light, kShardTimeoutS, [&](int, std::string_view piece) {
      bytes += piece.size();
      if (!piece.empty()) light.add(piece);
    });
    // A file no process could read ends the rounds: the others stop loading theirs.
    const bool stop = job->broadcastFromRoot(light.failed() ? "1" : "0", kShardTimeoutS) == "1";
    recognising += recognised - begin;
    exchanging += std::chrono::steady_clock::now() - recognised;
    if (stop) break;
  }
  clock.lap(("files loaded and recognised, light parts gathered and decoded, in " +
             std::to_string(rounds) + " round(s): " + std::to_string(bytes >> 20) + " MiB; of it " +
             std::to_string(std::chrono::duration<double>(recognising).count()) +
             " s this process's own files, " +
             std::to_string(std::chrono::duration<double>(exchanging).count()) +
             " s gathering and decoding (waiting for the others included)")
                .c_str());
  return analyzeShares(*job, std::move(share), job->rank() == 0 ? &light : nullptr, inputs,
                       {o.paths.begin(), o.paths.end()}, options, !o.local,
                       [&](const char* what) { clock.lap(what); });
}

}  // namespace bubblescope::cli
