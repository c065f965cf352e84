// Other frameworks' receive ranges as waits, on traces carrying their names (DeepSpeed's
// RecvActivation/RecvGrad, Megatron's recv and send-recv batches, torch pipelining's PP:<s>RECV_*):
// each waits on the previous stage (activations) or the next (gradients), and the diagnosis reads
// them as it reads bubblescope's own RECV ranges.
#include <gtest/gtest.h>

#include "analyzer/hang/hang_analysis.h"
#include "analyzer/hang/receive_ranges.h"

namespace bubblescope::analysis::hang {
namespace {

using traces::RankTrace;

constexpr TimeNs kSecond = 1'000'000'000;
constexpr TimeNs kT0 = 1'700'000'000 * kSecond;

// A stage of a pipeline the agent recorded and that was stopped (its window still open), with
// its step and the ranges it is inside.
RankTrace stage(int s, const std::vector<std::string>& open = {}) {
  RankTrace t;
  t.meta.rank = s;
  t.meta.extra["BUBBLESCOPE_PP_RANK"] = std::to_string(s);
  t.meta.captureWindows.push_back({kT0, 0, "record"});
  t.meta.aliveNs = kT0 + 3 * kSecond;
  const auto th = t.threadIndex(100 + static_cast<uint64_t>(s));
  for (size_t k = 0; k < open.size(); ++k) {
    t.openRanges->start.push_back(kT0 + static_cast<TimeNs>(k) * 1000);
    t.openRanges->thread.push_back(th);
    t.openRanges->domain.push_back(0);
    t.openRanges->name.push_back(t.strings.intern(open[k]));
    t.openRanges->depth.push_back(static_cast<uint16_t>(k));
    t.openRanges->kind.push_back(traces::RangeKind::PushPop);
  }
  return t;
}

TEST(HangReceiveRanges, EveryBuiltInFrameworksReceiveIsRead) {
  struct Case {
    const char* name;
    bool gradient;
  };
  const Case cases[] = {
      {"RECV B mb=3 from=2", true},
      {"PP:2RECV_F3", false},
      {"forward-recv", false},
      {"backward-recv", true},
      {"forward-send-backward-recv", true},
      {"backward-send-forward-recv", false},
      {"forward-send-forward-recv", false},
      {"backward-send-backward-recv", true},
      {"forward-backward-send-forward-backward-recv", false},
      {"megatron.core.pipeline_parallel.p2p_communication.recv_forward", false},
      {"RecvActivation", false},
      {"RecvGrad", true},
  };
  for (const Case& c : cases) {
    const auto r = receiveRange(c.name);
    ASSERT_TRUE(r.has_value()) << c.name;
    EXPECT_EQ(r->gradient, c.gradient) << c.name;
  }
  for (const char* other : {"SendGrad", "forward-send", "F mb=3", "PP:2SEND_F3", "step 0"}) {
    EXPECT_FALSE(receiveRange(other).has_value()) << other;
  }
}

TEST(HangReceiveRanges, SenderIsTheNamedStageElseTheNeighbourTheDataComesFrom) {
  EXPECT_EQ(senderStage(*receiveRange("RECV F mb=1 from=5"), 1, 8), 5);
  EXPECT_EQ(senderStage(*receiveRange("RecvActivation"), 2, 4), 1);
  EXPECT_EQ(senderStage(*receiveRange("RecvGrad"), 2, 4), 3);
  // Interleaved: the first stage's later chunks receive activations from the last stage.
  EXPECT_EQ(senderStage(*receiveRange("forward-recv"), 0, 4), 3);
  // torch pipelining names the virtual stage: PP:4 is chunk 1 of stage 0 in a 4-stage pipeline.
  EXPECT_EQ(senderStage(*receiveRange("PP:4RECV_F1"), 0, 4), 3);
  EXPECT_EQ(senderStage(*receiveRange("PP:3RECV_B0"), 3, 4), 0);
}

TEST(HangReceiveRanges, DeepSpeedStagesWaitingOnEachOtherAreADeadlock) {
  traces::Run run;
  run.ranks.push_back(stage(0, {"train_batch", "RecvGrad"}));
  run.ranks.push_back(stage(1, {"train_batch", "RecvGrad"}));
  run.ranks.push_back(stage(2, {"train_batch", "RecvActivation"}));
  const HangReport rep = analyzeHang(run);
  EXPECT_EQ(rep.verdict, Verdict::Deadlock) << rep.diagnosis;
  EXPECT_EQ(rep.diagnosis.rfind("deadlock: stage 1 waits in RecvGrad; stage 2 waits in "
                                "RecvActivation, which stage 1 sends only after that RECV",
                                0),
            0u)
      << rep.diagnosis;
  EXPECT_EQ(rep.culprits, (std::vector<int>{1, 2}));
  ASSERT_EQ(rep.edges.size(), 3u);
  const std::pair<int, int> expected[] = {{0, 1}, {1, 2}, {2, 1}};
  for (size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(rep.edges[k].from, expected[k].first) << k;
    EXPECT_EQ(rep.edges[k].to, expected[k].second) << k;
  }
  EXPECT_EQ(rep.edges[2].what, "RecvActivation");
}

TEST(HangReceiveRanges, MegatronReceiveFromAStageThatStoppedElsewhereIsNeverArrived) {
  const std::string recvForward = "megatron.core.pipeline_parallel.p2p_communication.recv_forward";
  traces::Run run;
  run.ranks.push_back(stage(0, {"forward-compute"}));
  run.ranks.push_back(stage(1, {recvForward}));
  run.ranks.push_back(stage(2, {"forward-send-backward-recv"}));
  run.ranks.push_back(stage(3, {"backward-compute"}));
  const HangReport rep = analyzeHang(run);
  EXPECT_EQ(rep.verdict, Verdict::NeverArrived) << rep.diagnosis;
  EXPECT_EQ(rep.culprits, std::vector<int>{0});
  EXPECT_EQ(rep.diagnosis.rfind("stage 0 never sent what stage 1 waits for: it stopped outside "
                                "any wait; stage 1 waits in " +
                                    recvForward,
                                0),
            0u)
      << rep.diagnosis;
  ASSERT_EQ(rep.ranks[1].waits.size(), 1u);
  EXPECT_EQ(rep.ranks[1].waits[0].on, std::vector<int>{0});
  // The batch that sends activations on waits for the gradients of the next stage.
  ASSERT_EQ(rep.ranks[2].waits.size(), 1u);
  EXPECT_EQ(rep.ranks[2].waits[0].on, std::vector<int>{3});
  ASSERT_EQ(rep.edges.size(), 2u);
  EXPECT_EQ(rep.edges[1].from, 2);
  EXPECT_EQ(rep.edges[1].to, 3);
  EXPECT_EQ(rep.edges[1].what, "forward-send-backward-recv");
}

TEST(HangReceiveRanges, TorchPipeliningReceiveOfALaterChunkWaitsAcrossTheWrap) {
  traces::Run run;
  for (int s = 0; s < 4; ++s) run.ranks.push_back(stage(s));
  run.ranks[0] = stage(0, {"PP:4RECV_F1"});
  const HangReport rep = analyzeHang(run);
  ASSERT_EQ(rep.ranks[0].waits.size(), 1u);
  EXPECT_EQ(rep.ranks[0].waits[0].on, std::vector<int>{3});
  EXPECT_EQ(rep.verdict, Verdict::NeverArrived) << rep.diagnosis;
  EXPECT_EQ(rep.culprits, std::vector<int>{3});
}

}  // namespace
}  // namespace bubblescope::analysis::hang
