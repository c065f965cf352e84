// A gap's sentence is written from the blame walk's words when a report needs it (issue 28): every
// form says its class, in either order a gap can give it (the walk's class leading, or the gap's
// largest piece leading and the walk's explanation after "of the rest").
#include "analyzer/idle/gap_sentence.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "analyzer/idle/gap_label.h"
#include "tests/analyzer/idle/gap_invariants.h"

namespace bubblescope::analysis {
namespace {

constexpr TimeNs kMs = 1'000'000;

// One walk of each form, with the class that form blames and the words it needs.
struct FormCase {
  BlameForm form;
  IdleClass cause;
  const char* says;  // what its sentence must hold
};

const std::vector<FormCase>& everyForm() {
  static const std::vector<FormCase> cases = {
      {BlameForm::Bubble, IdleClass::Warmup, "for the pipeline to fill (warm-up bubble)"},
      {BlameForm::Drained, IdleClass::Drain, "for the other stages to drain (drain bubble)"},
      {BlameForm::LastOpRanLong, IdleClass::Imbalance,
       "for F3 on stage 2 to finish the step, which ran 1.5x its ideal (imbalance)"},
      {BlameForm::RanLong, IdleClass::Jitter, "behind F3 on stage 2, which ran 1.5x its ideal"},
      {BlameForm::ProducerRanLong, IdleClass::Imbalance, "for F3 on stage 2, which ran 1.5x"},
      {BlameForm::ReceivePostedLate, IdleClass::HostStall,
       "because the host posted the receive of F3 on stage 2 2.5 ms after the stage was free, "
       "while it was in 'dataloader' (stall: host)"},
      {BlameForm::SendQueued, IdleClass::CommStall,
       "because the gradients of F3 on stage 2 waited 2.5 ms behind the transfer before them on "
       "the link stage 2 -> stage 1 (stall: comm)"},
      {BlameForm::SendPostedLate, IdleClass::HostStall,
       "because the host of stage 2 posted the send of the gradients of F3 on stage 2 2.5 ms after "
       "it ended, while it was in 'dataloader' (stall: host)"},
      {BlameForm::HeldBehind, IdleClass::CommStall,
       "because the gradients of B4 on stage 3 waited 2.5 ms on their stream behind the "
       "activations of F5 on stage 0, which took 1.5 ms longer than a healthy link takes, on the "
       "link stage 2 -> stage 1 (stall: comm)"},
      {BlameForm::LaunchedLate, IdleClass::HostStall,
       "because the host launched F3 on stage 2 2.5 ms after it was ready, while it was in "
       "'dataloader' (stall: host)"},
      {BlameForm::StartedAfterLaunch, IdleClass::OtherStall,
       "because F3 on stage 2 started 2.5 ms after it was ready although the host launched it in "
       "time (stall: other)"},
      {BlameForm::FirstOpAfterHost, IdleClass::HostStall,
       "because F3 on stage 2 started 2.5 ms after the step began, the host was busy in "
       "'dataloader' (stall: host)"},
      {BlameForm::StartedLate, IdleClass::OtherStall,
       "because F3 on stage 2 started 2.5 ms after it was ready, with nothing in the trace to "
       "explain it (stall: other)"},
      {BlameForm::SlowLink, IdleClass::CommStall,
       "because the gradients of F3 on stage 2 took 2.5 ms longer than a healthy link takes, on "
       "the link stage 2 -> stage 1 (stall: comm)"},
      {BlameForm::DpSync, IdleClass::DpSync,
       "at the DP sync for DP replica 3, whose stage 2 finished its ops 2.5 ms later (wait: DP "
       "sync)"},
  };
  return cases;
}

Blamed walkOf(const FormCase& c) {
  Blamed w;
  w.blame.cause = c.cause;
  w.blame.stage = 2;
  w.blame.toStage = 1;
  w.blame.op = {OpKind::F, 3, 0};
  w.blame.costRatio = 1.5;
  w.words.form = c.form;
  w.words.consumer = OpKind::B;
  w.words.afterStageFree = true;
  w.words.slowLink = true;
  w.words.took = 2'500'000;
  w.words.beyond = 1'500'000;
  w.words.hostName = 0;
  w.words.dpReplica = 3;
  w.words.producer = {3, {OpKind::B, 4, 0}};
  w.words.held = {0, {OpKind::F, 5, 0}};
  return w;
}

PipelineTrace pipelineWithDataloader() {
  PipelineTrace pl;
  pl.p = 4;
  pl.stages.resize(4);
  for (StageTrace& st : pl.stages) st.ops.hostNames = {"dataloader"};
  return pl;
}

// A gap of 4 ms on stage 2 that the walk `w` ended, its idle split into `pieces`, labelled
// (gap_label.h), with its sentence.
struct Written {
  Gap gap;
  std::string text;
};
Written written(const Blamed& w, std::initializer_list<std::pair<IdleClass, TimeNs>> pieces,
                const PipelineTrace& pl) {
  Written out;
  Gap& g = out.gap;
  g.stage = 2;
  g.idle = 4 * kMs;
  for (const auto& [c, t] : pieces) g.byClass[static_cast<int>(c)] = t;
  g.blame = w.blame;
  BlameWords words = w.words;
  labelGap(g, words, -1);
  out.text = gapSentence(g, words, pl);
  return out;
}

TEST(GapSentence, EveryFormOfWalkSaysItsClassWhereItIsTheGapsLargest) {
  const PipelineTrace pl = pipelineWithDataloader();
  ASSERT_EQ(everyForm().size(), static_cast<size_t>(BlameForm::LargestPiece)) << "a form untested";
  for (const FormCase& c : everyForm()) {
    const Blamed w = walkOf(c);
    const std::string text = written(w, {{c.cause, 4 * kMs}}, pl).text;
    SCOPED_TRACE(text);
    EXPECT_EQ(text, walkSentence(2, 4 * kMs, w, pl)) << "the walk's words, unchanged";
    EXPECT_TRUE(text.starts_with("stage 2 waited 4.0 ms ")) << "its stage and idle first";
    EXPECT_NE(text.find(c.says), std::string::npos);
    EXPECT_EQ(testing::firstClassNamed(text), static_cast<int>(c.cause));
  }
}

TEST(GapSentence, EveryFormOfWalkFollowsTheLargestPieceWhereItCoversLess) {
  const PipelineTrace pl = pipelineWithDataloader();
  for (const FormCase& c : everyForm()) {
    // The walk's class holds 1 ms; the largest piece, 3 ms, is a class the walk did not name.
    const IdleClass largest =
        c.cause == IdleClass::ScheduleBubble ? IdleClass::OtherStall : IdleClass::ScheduleBubble;
    const auto [g, text] = written(walkOf(c), {{c.cause, 1 * kMs}, {largest, 3 * kMs}}, pl);
    SCOPED_TRACE(text);
    EXPECT_EQ(g.dominant, largest);
    EXPECT_TRUE(text.starts_with("stage 2 waited 4.0 ms, 3.0 ms of it in a gap the schedule"));
    EXPECT_EQ(testing::firstClassNamed(text), static_cast<int>(largest));
    EXPECT_NE(text.find("; of the rest, 1.0 ms " + std::string(c.says).substr(0, 20)),
              std::string::npos);
  }
}

TEST(GapSentence, ADrainHeldByTheStepsLastOpSaysWhichOpThenWhy) {
  const PipelineTrace pl = pipelineWithDataloader();
  Blamed w = walkOf(everyForm()[13]);  // a slow link held it
  w.words.lastOp = {0, {OpKind::BW, 7, 0}};
  EXPECT_EQ(walkSentence(3, 1'200'000, w, pl),
            "stage 3 waited 1.2 ms for the step's last op (BW7 on stage 0), held up because the "
            "gradients of F3 on stage 2 took 2.5 ms longer than a healthy link takes, on the link "
            "stage 2 -> stage 1 (stall: comm)");
}

TEST(GapSentence, AHostRangeTheTraceDoesNotHoldIsNoName) {
  // A name index past the stage's names (or a stage past the pipeline's) names nothing rather
  // than reading past the list.
  PipelineTrace pl = pipelineWithDataloader();
  Blamed w = walkOf(everyForm()[9]);  // the host launched it late
  w.words.hostName = 5;
  EXPECT_EQ(walkSentence(2, 3 * kMs, w, pl),
            "stage 2 waited 3.0 ms because the host launched F3 on stage 2 2.5 ms after it was "
            "ready (stall: host)");
  w.blame.stage = 9;
  w.words.hostName = 0;
  EXPECT_NE(walkSentence(2, 3 * kMs, w, pl).find("after it was ready (stall: host)"),
            std::string::npos);
}

}  // namespace
}  // namespace bubblescope::analysis
