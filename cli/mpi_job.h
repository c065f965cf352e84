#pragma once
// This process as one of an MPI job, through the plugin libbubblescope-mpi.so (cli/mpi/), which
// is loaded only here: the program itself has no MPI dependency and runs without Open MPI.
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

struct bubblescope_mpi_plugin;

namespace bubblescope::cli {

class MpiJob {
 public:
  // Loads the plugin (BUBBLESCOPE_MPI_PLUGIN, else ../lib/bubblescope/libbubblescope-mpi.so beside
  // this program) and starts MPI. `launcher` names what said this is an MPI job
  // ("OMPI_COMM_WORLD_SIZE=4"). Throws UsageError, one sentence, when the plugin is missing or
  // unusable, or MPI does not start, or MPI sees another number of processes than the launcher
  // started (`launcherSize`: srun without --mpi=pmix makes each process a job of its own).
  // `command`: what needs it ("hang"), for the messages.
  static std::unique_ptr<MpiJob> start(const std::string& launcher, int launcherSize,
                                       const std::string& command);
  ~MpiJob();  // finalizes MPI if finalize() was not called
  MpiJob(const MpiJob&) = delete;
  MpiJob& operator=(const MpiJob&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  // Every rank's bytes, by rank, on rank 0; nothing elsewhere. A failure (a peer that died, or
  // has not sent within `timeoutS`) is said in one line and ends the whole job with exit code 2,
  // since the other processes may wait on this one.
  std::vector<std::string> gatherToRoot(std::string_view mine, double timeoutS);
  // The same, each rank's bytes handed to `take` on rank 0 as they arrive (in rank order, rank 0's
  // own first) and freed after: for bytes too large to hold all at once twice. `take` must not
  // throw (it is called from the plugin).
  void gatherToRoot(std::string_view mine, double timeoutS,
                    const std::function<void(int rank, std::string_view bytes)>& take);
  // Every rank's bytes for every rank: `toEach[r]` goes to rank r (size() entries, this rank's
  // own included); what each rank sent this one is handed to `take`, in rank order, and freed
  // after. `toEach` is freed once sent, before the first `take`: what a process hands on and
  // what it is handed are not held at once (but for its own bytes to itself, better kept out).
  // Failures as gatherToRoot.
  void exchange(std::vector<std::string>&& toEach, double timeoutS,
                const std::function<void(int rank, std::string_view bytes)>& take);
  // `pieces[r]` to rank r (this rank's own left empty), in rounds of at most `roundBytes` to each
  // peer (message_rounds.h): each piece is handed to `take` on the rank it went to, whole, round
  // after round (in rank order within one), and the bytes of a round are freed before the next
  // comes. For moves too large to hold twice, or to fit one MPI message. Failures as
  // gatherToRoot; a piece `take` throws for is thrown once the rounds are over.
  void exchangeInRounds(std::vector<std::vector<std::string>>&& pieces, size_t roundBytes,
                        double timeoutS,
                        const std::function<void(int rank, std::string_view piece)>& take);
  // Rank 0's bytes on every rank (`mine` on rank 0, ignored elsewhere); failures as gatherToRoot.
  std::string broadcastFromRoot(std::string_view mine, double timeoutS);
  // Ends MPI. The launcher counts a process that exits without it as failed.
  void finalize();

 private:
  explicit MpiJob(const bubblescope_mpi_plugin* plugin) : plugin_(plugin) {}
  const bubblescope_mpi_plugin* plugin_;
  int rank_ = 0;
  int size_ = 1;
  bool finalized_ = false;
};

}  // namespace bubblescope::cli
