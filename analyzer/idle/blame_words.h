#pragma once
// What a gap's sentence says, kept as data until a report needs the words (gap_sentence.h). A
// run's gaps are hundreds of thousands (150,000 at 10,000 stages) and a summary's reports name a
// few dozen; written for every gap as it was classified, the sentences were the largest item of
// the analysis's peak (issue 28). The blame walk (blame.h) fills these in place of text; the gap's
// Blame keeps what the root causes and the culprit read (class, stage, op, ratio).
#include <cstdint>

#include "analyzer/result/result.h"

namespace bubblescope::analysis {

// Which sentence the walk's answer is.
enum class BlameForm : uint8_t {
  Bubble,             // the schedule's own (warm-up, drain or steady, by Blame::cause)
  Drained,            // a drain: "for the other stages to drain"
  LastOpRanLong,      // a drain behind the step's last op, which ran long
  RanLong,            // "behind F3 on stage 2, which ran 1.3x its ideal" (the op before on a stage)
  ProducerRanLong,    // "for F3 on stage 2, which ran 1.3x its ideal" (the input's producer)
  ReceivePostedLate,  // the host posted the op's receive late
  SendQueued,         // the send waited behind the transfer before it on its link
  SendPostedLate,     // the sender's host posted the send late
  HeldBehind,         // the transfer waited on its stream behind another
  LaunchedLate,       // the host launched the op late (a launch call says so)
  StartedAfterLaunch,  // launched in time, started late (stall: other)
  FirstOpAfterHost,    // a step's first op that waits for no stage, after the host's work
  StartedLate,         // started late, no launch call: host busy (HostStall) or not (OtherStall)
  SlowLink,            // the input took longer than a healthy link takes
  DpSync,              // a drain at the DP sync, waiting for a later replica
  LargestPiece,        // no walk: the sentence is the gap's largest class (gap_label.h)
};

// An op and its stage; stage -1: none.
struct OpPlace {
  int stage = -1;
  Op op;
};

struct BlameWords {
  BlameForm form = BlameForm::Bubble;
  OpKind consumer = OpKind::F;  // whose input moved: "activations" (F) or "gradients"
  bool afterStageFree = false;  // ReceivePostedLate: after the stage was free, not its input
  bool slowLink = false;        // HeldBehind: the transfer it waited behind ran slow
  TimeNs took = 0;              // the delay the sentence gives ("posted ... 3.1 ms after")
  TimeNs beyond = 0;            // HeldBehind with slowLink: how much longer than healthy
  // The host range named (an index into the blamed stage's RankOps::hostNames; -1: none), and
  // for a gap the walk did not find the host stall of, the range that covered the gap (into
  // the gap's stage's).
  int hostName = -1;
  int gapHostName = -1;
  int dpReplica = -1;  // DpSync: the replica that arrived last
  OpPlace producer;    // HeldBehind: the input's producer
  OpPlace held;        // HeldBehind: the transfer's producer it waited behind (stage -1: unknown)
  OpPlace lastOp;      // a drain the step's last op held up ("for the step's last op (F3 ...)")
};

// The walk's answer: what the analysis reads, and the words of its sentence.
struct Blamed {
  Blame blame;
  BlameWords words;
};

}  // namespace bubblescope::analysis
