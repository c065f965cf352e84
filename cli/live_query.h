#pragma once
// Asking a running job's processes where they are (the `hang` request of the control protocol):
// `bubblescope hang --all/--pid` and `record --dormant --hang-timeout` both do it.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "agent/control/protocol.h"
#include "analyzer/hang/live_run.h"
#include "cli/attach_session.h"

namespace bubblescope::cli {

using analysis::hang::LiveRank;  // a process's status and answer

struct LiveAnswers {
  std::vector<LiveRank> ranks;                  // in the order asked
  std::vector<control::Reply> replies;          // the same answers as they came (with their pid)
  std::vector<std::filesystem::path> searched;  // where the sockets were looked for
};

// Every attachable process of this user (`all`) or the `pids`, of run `runId` if not empty.
// Processes that cannot be asked or answer badly get one problem line each; with `all`, those
// that exited meanwhile or belong to another run are left out silently (and finding none is
// for the caller to say: a node among several says it otherwise than one alone).
LiveAnswers askProcesses(bool all, const std::vector<int64_t>& pids, const std::string& runId,
                         Problems& problem);

// A process's answer as the run builder takes it, or what is wrong with it (a phrase the caller
// puts after the process or file it names). Its rank, local rank, world size and pid are whole
// numbers in range: the run narrows them to int ("rank": "4294967297" was rank 1).
std::string liveRankFromReply(const control::Reply& reply, int64_t pid, LiveRank* out);

}  // namespace bubblescope::cli
