#include "cli/mpi_job.h"

#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <iostream>

#include "cli/exit_codes.h"
#include "cli/message_rounds.h"
#include "cli/mpi/mpi_plugin_abi.h"
#include "cli/usage_error.h"

namespace bubblescope::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kPluginFile = "libbubblescope-mpi.so";

// BUBBLESCOPE_MPI_PLUGIN, else ../lib/bubblescope/ beside this program (the build tree mirrors
// an installation, as for the agent).
fs::path pluginPath() {
  if (const char* forced = std::getenv("BUBBLESCOPE_MPI_PLUGIN"); forced != nullptr && *forced) {
    return forced;
  }
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return (self.parent_path() / ".." / "lib" / "bubblescope" / kPluginFile).lexically_normal();
}

void collect(void* context, int rank, const char* data, int64_t size) {
  auto* out = static_cast<std::vector<std::string>*>(context);
  if (out->size() <= static_cast<size_t>(rank)) out->resize(static_cast<size_t>(rank) + 1);
  (*out)[static_cast<size_t>(rank)].assign(data, static_cast<size_t>(size));
}

}  // namespace

std::unique_ptr<MpiJob> MpiJob::start(const std::string& launcher, int launcherSize,
                                      const std::string& command) {
  const fs::path path = pluginPath();
  const std::string started = "started by an MPI launcher (" + launcher + "), ";
  if (!fs::exists(path)) {
    throw UsageError(started + command + " needs the MPI plugin, which is missing (looked for " +
                     path.string() +
                     "; build with Open MPI, libopenmpi-dev, or set BUBBLESCOPE_MPI=0 to run "
                     "each process alone)");
  }
  // RTLD_GLOBAL: Open MPI loads its own components, which look for libmpi's symbols there.
  // Never closed: MPI libraries are not made to be unloaded.
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (handle == nullptr) {
    throw UsageError(started + "the MPI plugin " + path.string() +
                     " cannot be loaded: " + ::dlerror());
  }
  auto entry = reinterpret_cast<bubblescope_mpi_entry_fn>(::dlsym(handle, BUBBLESCOPE_MPI_ENTRY));
  const bubblescope_mpi_plugin* plugin = entry != nullptr ? entry() : nullptr;
  if (plugin == nullptr || plugin->abi_version != BUBBLESCOPE_MPI_ABI_VERSION) {
    throw UsageError(started + path.string() + " is not an MPI plugin of this bubblescope");
  }
  char error[512] = {};
  if (plugin->init(error, sizeof error) != 0) throw UsageError(started + error);
  std::unique_ptr<MpiJob> job(new MpiJob(plugin));
  job->rank_ = plugin->rank();
  job->size_ = plugin->size();
  if (job->size_ != launcherSize) {
    job->finalize();
    throw UsageError("the launcher started " + std::to_string(launcherSize) + " processes (" +
                     launcher + ") but MPI sees " + std::to_string(job->size_) + ": start " +
                     command + " with the MPI's own launcher (mpirun) or srun --mpi=pmix");
  }
  return job;
}

MpiJob::~MpiJob() {
  finalize();
}

std::vector<std::string> MpiJob::gatherToRoot(std::string_view mine, double timeoutS) {
  std::vector<std::string> all;
  gatherToRoot(mine, timeoutS, [&](int rank, std::string_view bytes) {
    collect(&all, rank, bytes.data(), static_cast<int64_t>(bytes.size()));
  });
  return all;
}

void MpiJob::gatherToRoot(std::string_view mine, double timeoutS,
                          const std::function<void(int rank, std::string_view bytes)>& take) {
  auto handOn = [](void* context, int rank, const char* data, int64_t size) {
    (*static_cast<const std::function<void(int, std::string_view)>*>(context))(
        rank, std::string_view(data, static_cast<size_t>(size)));
  };
  char error[512] = {};
  if (plugin_->gather(mine.data(), static_cast<int64_t>(mine.size()), timeoutS, handOn,
                      const_cast<void*>(static_cast<const void*>(&take)), error,
                      sizeof error) != 0) {
    std::cerr << "bubblescope: MPI rank " << rank_ << ": " << error << "\n";
    plugin_->abort(kBadInput);
    std::_Exit(kBadInput);  // MPI_Abort does not return; this is for a plugin whose abort does
  }
}

void MpiJob::exchange(std::vector<std::string>&& toEach, double timeoutS,
                      const std::function<void(int rank, std::string_view bytes)>& take) {
  std::vector<int64_t> sizes(static_cast<size_t>(size_), 0);
  std::vector<const char*> data(static_cast<size_t>(size_), "");
  for (size_t r = 0; r < toEach.size() && r < sizes.size(); ++r) {
    sizes[r] = static_cast<int64_t>(toEach[r].size());
    data[r] = toEach[r].data();
  }
  // Every send is done once the first piece comes (the plugin's contract): what was sent goes
  // then, but this rank's own bytes, which the plugin hands back from where they are.
  struct Context {
    std::vector<std::string>* sent;
    int self;
    const std::function<void(int, std::string_view)>* take;
  } context{&toEach, rank_, &take};
  auto handOn = [](void* c, int rank, const char* bytes, int64_t size) {
    auto* ctx = static_cast<Context*>(c);
    for (size_t r = 0; r < ctx->sent->size(); ++r) {
      if (static_cast<int>(r) != ctx->self) std::string().swap((*ctx->sent)[r]);
    }
    (*ctx->take)(rank, std::string_view(bytes, static_cast<size_t>(size)));
  };
  char error[512] = {};
  if (plugin_->exchange(data.data(), sizes.data(), timeoutS, handOn, &context, error,
                        sizeof error) != 0) {
    std::cerr << "bubblescope: MPI rank " << rank_ << ": " << error << "\n";
    plugin_->abort(kBadInput);
    std::_Exit(kBadInput);
  }
  std::vector<std::string>().swap(toEach);
}

void MpiJob::exchangeInRounds(std::vector<std::vector<std::string>>&& pieces, size_t roundBytes,
                              double timeoutS,
                              const std::function<void(int rank, std::string_view piece)>& take) {
  OutgoingPieces outgoing(std::move(pieces), roundBytes);
  std::exception_ptr failed;
  for (bool more = true; more;) {
    more = false;
    exchange(outgoing.nextRound(), timeoutS, [&](int rank, std::string_view message) {
      // Every process reads every flag, its own too: all agree on the rounds, whatever fails.
      more = more || piecesLeftAfter(message);
      if (failed) return;
      try {
        takePieces(message, [&](std::string_view piece) { take(rank, piece); });
      } catch (...) {
        failed = std::current_exception();
      }
    });
  }
  if (failed) std::rethrow_exception(failed);
}

std::string MpiJob::broadcastFromRoot(std::string_view mine, double timeoutS) {
  std::vector<std::string> got;
  char error[512] = {};
  if (plugin_->broadcast(mine.data(), static_cast<int64_t>(mine.size()), timeoutS, collect, &got,
                         error, sizeof error) != 0) {
    std::cerr << "bubblescope: MPI rank " << rank_ << ": " << error << "\n";
    plugin_->abort(kBadInput);
    std::_Exit(kBadInput);
  }
  return rank_ == 0 ? std::string(mine) : (got.empty() ? std::string() : std::move(got[0]));
}

void MpiJob::finalize() {
  if (finalized_) return;
  finalized_ = true;
  char error[512] = {};
  if (plugin_->finalize(error, sizeof error) != 0) {
    std::cerr << "bubblescope: MPI rank " << rank_ << ": " << error << "\n";
  }
}

}  // namespace bubblescope::cli
