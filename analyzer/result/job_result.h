#pragma once
// What the job-wide analysis finds beyond one pipeline (analysis.md §7): TP groups folded into
// their stage (the spread between members, a slow TP rank named), the DP sync's waiting blamed on
// the replica and stage that arrived last, the job's slowdown S against the job-wide ideal and
// its what-if decomposition by stage (S_s), DP replica (S_d) and op type (S_k), the culprit, and
// sequence-length imbalance. Part of AnalysisResult; every report shows it when the job has more
// than one replica or TP rank.
#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/result/model_check.h"
#include "traces/model/time.h"

namespace bubblescope::analysis {

// One TP group (the TP ranks of one stage of one replica).
struct TpGroupResult {
  int dp = 0, stage = 0;
  std::vector<int> ranks;  // global ranks of its members, by TP rank
  int ops = 0;             // ops matched across every member
  TimeNs meanSpread = 0;   // mean over ops of (last member's end - first member's end)
  TimeNs maxSpread = 0;
  int slowRank = -1;     // the member that ended last in most ops (-1: none stands out)
  double slowShare = 0;  // the share of ops it ended last in
  TimeNs slowLag = 0;    // how much later than the others' mean end it ended, on average
};

// Waiting in the DP collectives of one step for the replica that arrived last.
struct DpSyncBlame {
  int dp = 0, stage = 0;  // the replica and stage that arrived last
  TimeNs waitCaused = 0;  // the other replicas' waiting, summed over their stages and the steps
  int stepsLast = 0;      // in how many steps it arrived last at this stage's collective
};

// The what-if slowdown of one part: the step time when only it keeps its measured costs (the
// rest at the ideal) over T_ideal.
struct PartSlowdown {
  int id = 0;        // stage, DP rank, or op kind (OpKind as int)
  std::string name;  // "stage 3", "DP replica 0", "backward-compute"
  double slowdown = 1;
  TimeNs stepTime = 0;
};

struct SequenceImbalance {
  int dp = 0;
  double correlation = 0;  // share of the per-op variation the per-microbatch factor explains
  double spread = 0;       // relative standard deviation of the per-microbatch factors
  int longestMb = 0;       // the microbatch with the largest factor (in the first step analysed)
  double longestFactor = 1;
  std::string text;
};

struct JobResult {
  bool present = false;  // only for jobs of more than one replica or TP rank
  int steps = 0;         // steps analysed on every replica
  TimeNs stepTimeMeasured = 0, stepTimeIdeal = 0, stepTimeOps = 0, tail = 0, transfer = 0;
  double slowdown = 1;  // S = measured / ideal
  ModelCheck model;     // whether every replica's replay of measured op costs reproduces the job
  std::vector<PartSlowdown> stages, dpRanks, opTypes;
  std::string culprit;     // one sentence naming what to fix and by how much the step would shrink
  TimeNs culpritGain = 0;  // how much shorter the step would be with the culprit ideal
  int culpritDp = -1, culpritStage = -1;  // the replica / stage it names (-1: none, or every one)
  // The culprit is a replica's stalls, not its op costs: its pipeline's culprit says which.
  bool culpritStalls = false;
  // Per replica (in dpRanks' order), per step: how much longer its ops' span ran than its replay
  // at measured op costs (healthy transfers, no waits on the host); read by the culprit.
  std::vector<TimeNs> stallsByReplica;
  std::vector<TpGroupResult> tpGroups;
  TimeNs dpWaitPerStep = 0;         // all replicas' waiting in the DP sync, per step
  std::vector<DpSyncBlame> dpSync;  // largest first
  std::vector<SequenceImbalance> sequenceImbalance;
  std::vector<std::string> notes;  // e.g. steps left out
};

}  // namespace bubblescope::analysis
