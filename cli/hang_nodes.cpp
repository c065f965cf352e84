#include "cli/hang_nodes.h"

#include <exception>
#include <sstream>

#include "cli/live_query.h"
#include "cli/mpi_job.h"
#include "cli/usage_error.h"

namespace bubblescope::cli {
namespace {

// How long rank 0 waits for the other nodes once its own answers are in: each node asks its
// processes in at most a few seconds (a process that does not answer in 3 s is left out), so a
// node that has not sent by then died or hangs, under a launcher that did not end the job.
constexpr double kGatherTimeoutS = 30;

std::string nodeName(const std::string& host, int rank) {
  return "node " + (host.empty() ? std::string("?") : host) + " (MPI rank " + std::to_string(rank) +
         ")";
}

}  // namespace

std::optional<std::vector<NodeAnswers>> gatherNodeAnswers(const HangOptions& o,
                                                          const std::string& launcher,
                                                          int launcherSize, Problems& problem) {
  const std::unique_ptr<MpiJob> job = MpiJob::start(launcher, launcherSize, "hang");
  // Pids and sockets are a node's own: each line says which node it is about.
  problem.prefix = nodeName(hostName(), job->rank()) + ": ";
  LiveAnswers local;
  try {
    local = askProcesses(true, {}, o.runId, problem);
  } catch (const std::exception& e) {
    // This node's trouble, said here; the others still report (it counts as a node without
    // processes), and rank 0 is not left waiting.
    problem(e.what());
  }
  problem.prefix.clear();
  std::ostringstream mine;
  writeAnswersJson(local.replies, hostName(), o.minWaitSeconds, mine);
  const std::vector<std::string> sent = job->gatherToRoot(mine.str(), kGatherTimeoutS);
  job->finalize();
  if (job->rank() != 0) return std::nullopt;

  const std::string ofRun = o.runId.empty() ? "" : " of run " + o.runId;
  std::vector<NodeAnswers> nodes;
  size_t answers = 0;
  for (size_t r = 0; r < sent.size(); ++r) {
    NodeAnswers node;
    node.answers = parseAnswers(sent[r], "the answers of MPI rank " + std::to_string(r));
    node.name = nodeName(node.answers.host, static_cast<int>(r));
    answers += node.answers.replies.size();
    nodes.push_back(std::move(node));
  }
  if (answers == 0) {
    throw UsageError("none of the " + std::to_string(nodes.size()) +
                     " nodes asked has attachable processes" + ofRun);
  }
  // Not an error: a job need not span every node of the allocation.
  for (const NodeAnswers& node : nodes) {
    if (node.answers.replies.empty()) problem(node.name + ": no attachable processes" + ofRun);
  }
  return nodes;
}

}  // namespace bubblescope::cli
