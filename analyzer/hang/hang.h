#pragma once
// The debugger's answer for a run that hung or mismatched (`bubblescope hang`): where each rank
// stopped, who waits for whom, and one diagnosis. The model shared by the analysis (diagnose.h),
// its inputs (stop_points.h, nccl_waits.h) and its outputs (hang_output.h).
#include <cstdint>
#include <string>
#include <vector>

#include "traces/model/time.h"

namespace bubblescope::analysis::hang {

enum class RankEnd {
  Clean,    // the trace was closed: the process exited normally
  Stopped,  // still running when it was stopped (signal, watchdog, SIGKILL): the trace just ends
  Died,     // its trace ends well before the others' without a clean exit
  Running,  // asked live (`hang --all`): it answered, so it runs (or sits hung) now
};
const char* rankEndName(RankEnd end);

// Something a rank was blocked in when it stopped: an open receive range, or an NCCL call whose
// other side never came or whose kernel never finished.
struct Wait {
  std::string what;  // "RECV B mb=3 from=2", "ncclRecv peer=2 count=1024 comm=0x1f…"
  TimeNs since = 0;
  std::vector<int> on;  // the ranks (indexes into the report's ranks) it waits for
  bool nccl = false;
  TimeNs unwoundAt = 0;  // not 0: the range was closed as the process unwound out of it, then
  // Not 0: an NCCL call whose kernel was launched then and never finished (device_waits.h): the
  // rank's stream is stuck on the device there.
  TimeNs kernelLaunch = 0;
  bool partnerPosted = false;  // an NCCL call whose other sides all made the matching call
  // A receive from a stage no trace of the run holds (ranks copied in part): that stage, which
  // `on` cannot name; -1 otherwise.
  int missingStage = -1;
};

struct RankStop {
  int rank = -1;      // global rank
  int stage = -1;     // pipeline stage (BUBBLESCOPE_PP_RANK, else the rank)
  std::string label;  // "stage 2" when the trace knows its stage, else "rank 2"
  std::string file;
  RankEnd end = RankEnd::Stopped;
  TimeNs aliveNs = 0;             // last seen alive (the trace's last commit)
  std::vector<std::string> open;  // ranges open on its threads, outermost first
  std::string step;               // the step range it stopped in ("step 0"), "" if none
  std::string lastOp;             // the last op it finished ("F mb=2"), "" if none
  TimeNs lastOpEnd = 0;
  int opsInStep = 0;  // ops it finished in that step: the next is op #opsInStep; -1 unknown (live)
  std::vector<std::string> opsDoneInStep;  // their names, for "not run yet" questions
  std::vector<Wait> waits;                 // innermost first; empty: waits on nobody
};

enum class Verdict {
  Clean,             // every rank exited normally: exit 0
  Deadlock,          // a cycle in the wait-for graph
  NeverArrived,      // ranks wait on one that never made the matching call (alive, elsewhere)
  DeadRank,          // ranks wait on one that died
  SequenceMismatch,  // the two sides of a call disagree (counts, sizes, ops)
  Stopped,           // the run did not end cleanly, but no rank waits on another
  NcclStuck,         // ranks wait on each other in matched NCCL calls whose kernels never finished
};
const char* verdictName(Verdict v);

struct WaitEdge {
  int from = -1, to = -1;  // indexes into ranks
  std::string what;
};

struct HangReport {
  Verdict verdict = Verdict::Clean;
  std::string diagnosis;             // one sentence
  std::vector<int> culprits;         // indexes into ranks the diagnosis names first
  std::vector<std::string> details;  // further lines (more mismatches, other cycles)
  std::vector<RankStop> ranks;
  std::vector<WaitEdge> edges;  // the wait-for graph

  bool found() const { return verdict != Verdict::Clean; }
};

}  // namespace bubblescope::analysis::hang
