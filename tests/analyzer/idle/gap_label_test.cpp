// One label per gap, and the sentence says the same (issue 26, item 3).
#include "analyzer/idle/gap_label.h"

#include <gtest/gtest.h>

#include "analyzer/idle/gap_sentence.h"
#include "tests/analyzer/idle/gap_invariants.h"

namespace bubblescope::analysis {
namespace {

constexpr TimeNs kUs = 1'000;

Gap gapOf(int stage, std::initializer_list<std::pair<IdleClass, TimeNs>> pieces, Blame blame) {
  Gap g;
  g.stage = stage;
  for (const auto& [c, t] : pieces) {
    g.byClass[static_cast<int>(c)] = t;
    g.idle += t;
  }
  g.blame = std::move(blame);
  return g;
}

// A pipeline of `stages` stages whose host ran one range, "dataloader" (name 0 of each).
PipelineTrace withDataloader(int stages) {
  PipelineTrace pl;
  pl.p = stages;
  pl.stages.resize(static_cast<size_t>(stages));
  for (StageTrace& st : pl.stages) st.ops.hostNames = {"dataloader"};
  return pl;
}

// The gap: 11.70 ms of stall: other and 0.15 ms of schedule, which the walk explained as
// the schedule's; it was labelled "schedule", its sentence said so, and the viewer drew it blue.
TEST(GapLabel, TheLargestPieceLabelsTheGapAndLeadsItsSentence) {
  Blame walk;
  walk.cause = IdleClass::ScheduleBubble;
  BlameWords words;
  words.form = BlameForm::Bubble;
  Gap g = gapOf(1, {{IdleClass::OtherStall, 11'700 * kUs}, {IdleClass::ScheduleBubble, 150 * kUs}},
                walk);
  labelGap(g, words, -1);
  EXPECT_EQ(g.dominant, IdleClass::OtherStall);
  const std::string text = gapSentence(g, words, withDataloader(2));
  EXPECT_EQ(text,
            "stage 1 waited 11.8 ms, 11.7 ms of it beyond what the op costs explain, with nothing "
            "in the trace to say why (stall: other); of the rest, 0.15 ms in a gap the schedule "
            "itself leaves (schedule bubble)");
  EXPECT_EQ(g.blame.cause, IdleClass::ScheduleBubble) << "the walk's class, for its piece";
  EXPECT_EQ(testing::firstClassNamed(text), static_cast<int>(IdleClass::OtherStall));
}

TEST(GapLabel, AWalkThatNamesTheLargestPieceIsKeptWordForWord) {
  Blame walk;
  walk.cause = IdleClass::Imbalance;
  walk.stage = 2;
  walk.op = {OpKind::F, 3, 0};
  walk.costRatio = 1.4;
  BlameWords words;
  words.form = BlameForm::ProducerRanLong;
  Gap g = gapOf(3, {{IdleClass::Imbalance, 3'000 * kUs}, {IdleClass::Warmup, 1'000 * kUs}}, walk);
  const PipelineTrace pl = withDataloader(4);
  const std::string before = walkSentence(3, g.idle, Blamed{walk, words}, pl);
  EXPECT_EQ(before,
            "stage 3 waited 4.0 ms for F3 on stage 2, which ran 1.4x its ideal (imbalance)");
  labelGap(g, words, -1);
  EXPECT_EQ(g.dominant, IdleClass::Imbalance);
  EXPECT_EQ(gapSentence(g, words, pl), before);
  EXPECT_EQ(g.blame.stage, 2);
}

// A walk whose class holds none of the gap explains none of it: dropped, with its stage and op,
// so no sentence names a class or a stage the gap's split does not hold.
TEST(GapLabel, AWalkThatExplainsNoPieceIsDropped) {
  Blame walk;
  walk.cause = IdleClass::Jitter;
  walk.stage = 0;
  walk.op = {OpKind::BW, 1, 0};
  walk.costRatio = 1.1;
  BlameWords words;
  words.form = BlameForm::ProducerRanLong;
  Gap g = gapOf(2, {{IdleClass::HostStall, 5'000 * kUs}}, walk);
  labelGap(g, words, 0);
  EXPECT_EQ(g.dominant, IdleClass::HostStall);
  EXPECT_EQ(g.blame.cause, IdleClass::HostStall);
  EXPECT_EQ(g.blame.stage, -1);
  EXPECT_EQ(gapSentence(g, words, withDataloader(3)),
            "stage 2 waited 5.0 ms, 5.0 ms of it beyond what the op costs explain, while the host "
            "was in 'dataloader' (stall: host)");
}

TEST(GapLabel, ATieGoesToTheWalksClass) {
  EXPECT_EQ(largestClass({0, 0, 0, 5, 5, 0, 0, 0}, IdleClass::Jitter), IdleClass::Jitter);
  EXPECT_EQ(largestClass({0, 0, 0, 5, 5, 0, 0, 0}, IdleClass::Warmup), IdleClass::Imbalance);
}

TEST(GapInvariants, TheFirstClassTagIsTheOneNamed) {
  EXPECT_EQ(testing::firstClassNamed("x (stall: host; counted as jitter) (jitter)"),
            static_cast<int>(IdleClass::HostStall));
  EXPECT_EQ(testing::firstClassNamed("a (imbalance) then (warm-up bubble)"),
            static_cast<int>(IdleClass::Imbalance));
  EXPECT_EQ(testing::firstClassNamed("no class here"), -1);
}

}  // namespace
}  // namespace bubblescope::analysis
