// The built-in rule sets (analysis.md §4): each recognises the labels its framework emits, with
// the kind, microbatch, chunk, peer, stage and step the label carries, and refuses near misses.
#include "analyzer/recognize/rule_set.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace bubblescope::analysis {
namespace {

const RuleSet& builtin(const std::string& name) {
  for (const RuleSet& s : builtinRuleSets()) {
    if (s.name == name) return s;
  }
  throw std::logic_error("no built-in rule set " + name);
}

// What one label must give.
struct LabelCase {
  const char* label;
  Role role;
  OpKind kind = OpKind::F;
  std::optional<int> mb{};
  int chunk = 0;
  std::optional<int> peer{};
  std::optional<int> stage{};
  std::optional<int64_t> step{};
};

void expectMatches(const RuleSet& set, const std::vector<LabelCase>& cases) {
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(set.name) + ": '" + c.label + "'");
    const std::optional<Match> m = set.match(c.label);
    ASSERT_TRUE(m.has_value());
    EXPECT_EQ(m->role, c.role);
    if (c.role == Role::Op || c.role == Role::Send || c.role == Role::Recv) {
      EXPECT_EQ(m->kind, c.kind);
    }
    EXPECT_EQ(m->mb, c.mb);
    EXPECT_EQ(m->chunk, c.chunk);
    EXPECT_EQ(m->peer, c.peer);
    EXPECT_EQ(m->stage, c.stage);
    EXPECT_EQ(m->step, c.step);
  }
}

void expectRefuses(const RuleSet& set, const std::vector<const char*>& labels) {
  for (const char* label : labels) {
    EXPECT_FALSE(set.match(label).has_value()) << set.name << ": '" << label << "'";
  }
}

// Choosing a rank's set asks only whether each name is an op, and stops at a set's last op rule:
// it answers as the whole match does, for every built-in set, on labels of every framework,
// near misses and names that only a later rule (or none) matches.
TEST(BuiltinRuleSets, WhetherANameIsAnOpIsWhatItsMatchSays) {
  const std::vector<std::string> names = {
      "F mb=3",
      "BW mb=0 ch=1",
      "SEND F mb=2 to=1",
      "RECV B mb=1 from=0",
      "step 12",
      "PP:1F3",
      "PP:0I2",
      "PP:1SEND_F3",
      "Forward 4",
      "Backward 4",
      "F1.2.3",
      "W0.1.2",
      "R1.2.3",
      "iter_3_7",
      "forward-compute",
      "backward-compute",
      "forward-send",
      "megatron.core.pipeline_parallel.p2p_communication.send_forward",
      "forward-send-backward-recv",
      "ForwardPass",
      "BackwardPass",
      "SendGrad",
      "ProfilerStep#5",
      "optimizer",
      "grad_sync grads-reduce-scatter",
      "dataloader",
      "",
      "F mb=x",
      "forward-compute2",
      "Forward",
      "PP:F1"};
  for (const RuleSet& set : builtinRuleSets()) {
    for (const std::string& name : names) {
      const auto m = set.matchOnce(name);
      EXPECT_EQ(set.matchesOp(name), m && m->role == Role::Op) << set.name << ": " << name;
    }
  }
}

TEST(BuiltinRuleSets, AreTriedInTheDocumentedOrder) {
  std::vector<std::string> names;
  for (const RuleSet& s : builtinRuleSets()) names.push_back(s.name);
  EXPECT_EQ(names, (std::vector<std::string>{"bubblescope", "torch.distributed.pipelining",
                                             "zero-bubble", "megatron", "deepspeed"}));
}

TEST(BuiltinRuleSets, BubblescopeConventionReadsKindMicrobatchChunkAndPeer) {
  const RuleSet& set = builtin("bubblescope");
  EXPECT_FALSE(set.countsMicrobatches);
  expectMatches(set, {
                         {"F mb=3 ch=1", Role::Op, OpKind::F, 3, 1},
                         {"B mb=3", Role::Op, OpKind::B, 3, 0},
                         {"W mb=0", Role::Op, OpKind::W, 0, 0},
                         {"BW mb=12 ch=0", Role::Op, OpKind::BW, 12, 0},
                         {"F mb=3 ch=1 seq=512 tokens=4096", Role::Op, OpKind::F, 3, 1},
                         {"F mb=3 seq=512", Role::Op, OpKind::F, 3, 0},
                         {"SEND F mb=3 to=2", Role::Send, OpKind::F, 3, 0, 2},
                         {"RECV B mb=3 ch=1 from=2", Role::Recv, OpKind::B, 3, 1, 2},
                         {"SEND B mb=0 to=0 bytes=1024", Role::Send, OpKind::B, 0, 0, 0},
                         {"step 12", Role::Step, OpKind::F, {}, 0, {}, {}, 12},
                         {"optimizer", Role::Optimizer},
                         {"grad_sync", Role::GradSync},
                         {"loss", Role::OtherBusy},
                         {"recompute mb=3", Role::OtherBusy},
                     });
  expectRefuses(set, {"F mb=x", "X mb=3", "f mb=3", "F mb=3ch=1", "F  mb=3", "F mb=", "FW mb=3",
                      "SEND W mb=3 to=2", "SEND F mb=3", "RECV F mb=3 to=2", "step", "step x",
                      "optimizer2", "PP:0F3"});
}

TEST(BuiltinRuleSets, TorchPipeliningReadsStageActionAndMicrobatch) {
  const RuleSet& set = builtin("torch.distributed.pipelining");
  EXPECT_FALSE(set.countsMicrobatches);
  // I is the input gradient (our B), B the full backward (our BW).
  expectMatches(set, {
                         {"PP:2F5", Role::Op, OpKind::F, 5, 0, {}, 2},
                         {"PP:0I3", Role::Op, OpKind::B, 3, 0, {}, 0},
                         {"PP:0B3", Role::Op, OpKind::BW, 3, 0, {}, 0},
                         {"PP:1W0", Role::Op, OpKind::W, 0, 0, {}, 1},
                         {"PP:12F30", Role::Op, OpKind::F, 30, 0, {}, 12},
                         {"PP:1SEND_F4", Role::Send, OpKind::F, 4, 0, {}, 1},
                         {"PP:1RECV_B4", Role::Recv, OpKind::B, 4, 0, {}, 1},
                         {"PP:3REDUCE_GRAD", Role::GradSync, OpKind::F, {}, 0, {}, 3},
                         {"Forward 7", Role::Op, OpKind::F, 7},
                         {"Backward 7", Role::Op, OpKind::BW, 7},
                     });
  expectRefuses(set, {"PP:2X5", "PP:F5", "PP:2F", "PP:1SEND_W4", "Forward", "forward 7", "F mb=3"});
}

TEST(BuiltinRuleSets, ZeroBubbleReadsKindMicrobatchAndChunk) {
  const RuleSet& set = builtin("zero-bubble");
  expectMatches(set, {
                         {"F3.1.0", Role::Op, OpKind::F, 3, 1},
                         {"B3.0.2", Role::Op, OpKind::B, 3, 0},
                         {"W10.1.5", Role::Op, OpKind::W, 10, 1},
                         {"R3.0.0", Role::OtherBusy},
                         {"W_clear.0.1", Role::OtherBusy},
                         {"iter_2_17", Role::Step, OpKind::F, {}, 0, {}, {}, 17},
                     });
  expectRefuses(set, {"F3.1", "BW3.0.0", "F3.1.0.2", "iter_2"});
}

TEST(BuiltinRuleSets, MegatronTimerNamesGiveKindButNoMicrobatch) {
  const RuleSet& set = builtin("megatron");
  EXPECT_TRUE(set.countsMicrobatches);
  const char* p2p = "megatron.core.pipeline_parallel.p2p_communication.";
  const std::string sendForward = std::string(p2p) + "send_forward";
  const std::string recvBackward = std::string(p2p) + "recv_backward";
  const std::string sendForwardRecvBackward = std::string(p2p) + "send_forward_recv_backward";
  expectMatches(set, {
                         {"forward-compute", Role::Op, OpKind::F},
                         {"backward-compute", Role::Op, OpKind::BW},
                         {"forward-send", Role::Send, OpKind::F},
                         {"forward-recv", Role::Recv, OpKind::F},
                         {"backward-send", Role::Send, OpKind::B},
                         {"backward-recv", Role::Recv, OpKind::B},
                         {sendForward.c_str(), Role::Send, OpKind::F},
                         {recvBackward.c_str(), Role::Recv, OpKind::B},
                         // A batch that also receives is where the rank waits for the data.
                         {"forward-send-backward-recv", Role::Recv, OpKind::B},
                         {"backward-send-forward-recv", Role::Recv, OpKind::F},
                         {sendForwardRecvBackward.c_str(), Role::Recv, OpKind::B},
                         // The interleaved schedule's batches.
                         {"forward-send-forward-recv", Role::Recv, OpKind::F},
                         {"backward-send-backward-recv", Role::Recv, OpKind::B},
                         {"forward-backward-send-forward-backward-recv", Role::Recv, OpKind::F},
                     });
  expectRefuses(set, {"forward-computes", "forward", "forward-compute 3"});
}

TEST(BuiltinRuleSets, DeepSpeedInstructionsGiveKindButNoMicrobatch) {
  const RuleSet& set = builtin("deepspeed");
  EXPECT_TRUE(set.countsMicrobatches);
  expectMatches(set, {
                         {"ForwardPass", Role::Op, OpKind::F},
                         {"DeepSpeedEngine.forward", Role::Op, OpKind::F},
                         {"BackwardPass", Role::Op, OpKind::BW},
                         {"DeepSpeedEngine.backward", Role::Op, OpKind::BW},
                         {"SendActivation", Role::Send, OpKind::F},
                         {"RecvActivation", Role::Recv, OpKind::F},
                         {"SendGrad", Role::Send, OpKind::B},
                         {"RecvGrad", Role::Recv, OpKind::B},
                         {"OptimizerStep", Role::Optimizer},
                         {"ReduceGrads", Role::GradSync},
                         {"ReduceTiedGrads", Role::GradSync},
                     });
  expectRefuses(set, {"ForwardPass2", "forwardpass", "SendActivations"});
}

TEST(BuiltinRuleSets, AnOpLabelIsAnOpForItsOwnRuleSetOnly) {
  const std::vector<std::pair<const char*, const char*>> labels = {
      {"F mb=3 ch=1", "bubblescope"},
      {"PP:2F5", "torch.distributed.pipelining"},
      {"Forward 7", "torch.distributed.pipelining"},
      {"F3.1.0", "zero-bubble"},
      {"forward-compute", "megatron"},
      {"ForwardPass", "deepspeed"},
  };
  for (auto [label, owner] : labels) {
    for (const RuleSet& set : builtinRuleSets()) {
      const auto m = set.match(label);
      const bool op = m && m->role == Role::Op;
      EXPECT_EQ(op, set.name == owner) << set.name << ": '" << label << "'";
    }
  }
}

TEST(CommonMarkers, FindStepsOptimizerAndGradientSyncOfEveryFramework) {
  expectMatches(commonMarkers(), {
                                     {"ProfilerStep#12", Role::Step, OpKind::F, {}, 0, {}, {}, 12},
                                     {"step 3", Role::Step, OpKind::F, {}, 0, {}, {}, 3},
                                     {"optimizer", Role::Optimizer},
                                     {"optimizer_step", Role::Optimizer},
                                     {"Optimizer.step#AdamW.step", Role::Optimizer},
                                     {"OptimizerStep", Role::Optimizer},
                                     {"grad_sync", Role::GradSync},
                                     {"allreduce_gradients", Role::GradSync},
                                     {"DeepSpeedEngine.allreduce_gradients", Role::GradSync},
                                 });
  expectRefuses(commonMarkers(), {"ProfilerStep#", "F mb=0", "optimizer.zero_grad"});
}

// A rule as a user file would give it: kind from a capture group through a table.
Rule kindFromGroupRule() {
  Rule r;
  r.source = R"((\w+) mb(\w+)(?: ch(\d+))?)";
  r.pattern = Pattern(r.source);
  r.kindGroup = 1;
  r.kinds = {{"fwd", OpKind::F}, {"bwd", OpKind::BW}};
  r.mbGroup = 2;
  r.chunkGroup = 3;
  return r;
}

TEST(Rule, ReadsTheKindThroughItsTableAndRefusesKindsNotInIt) {
  const Rule r = kindFromGroupRule();
  const auto fwd = r.apply("fwd mb4 ch1");
  ASSERT_TRUE(fwd);
  EXPECT_EQ(fwd->kind, OpKind::F);
  EXPECT_EQ(fwd->mb, 4);
  EXPECT_EQ(fwd->chunk, 1);
  const auto bwd = r.apply("bwd mb4");
  ASSERT_TRUE(bwd);
  EXPECT_EQ(bwd->kind, OpKind::BW);
  EXPECT_EQ(bwd->chunk, 0);  // the optional group did not match: chunk 0
  EXPECT_FALSE(r.apply("opt mb4"));
}

TEST(Rule, NonNumericCaptureLeavesTheFieldUnset) {
  const auto m = kindFromGroupRule().apply("fwd mbx");
  ASSERT_TRUE(m);
  EXPECT_FALSE(m->mb.has_value());
}

TEST(Rule, PatternMustMatchTheWholeName) {
  const Rule r = kindFromGroupRule();
  EXPECT_FALSE(r.apply("prefix fwd mb4"));
  EXPECT_FALSE(r.apply("fwd mb4 ch1 suffix"));
}

// std::regex recursed once per character and overflowed the stack on a 40 KB name.
TEST(Rule, HugeNamesAreRefusedCheaplyAndLongOnesStillMatch) {
  const RuleSet& set = builtin("bubblescope");
  EXPECT_FALSE(set.match("F mb=1 " + std::string(40000, 'A')));
  EXPECT_FALSE(set.match(std::string(kMaxMatchedNameBytes + 1, 'A')));
  const auto m = set.match("F mb=1 " + std::string(3000, 'A'));
  ASSERT_TRUE(m);
  EXPECT_EQ(m->mb, 1);
}

TEST(Rule, NumberTooLargeForItsFieldLeavesItUnset) {
  const auto m = builtin("bubblescope").match("F mb=99999999999");
  ASSERT_TRUE(m);
  EXPECT_FALSE(m->mb.has_value());
}

TEST(Pattern, Re2RefusesBackreferencesWithItsReason) {
  try {
    Pattern p("(a)\\1");
    FAIL() << "a backreference compiled";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("invalid escape sequence"), std::string::npos) << e.what();
  }
}

TEST(RuleSet, FirstMatchingRuleWins) {
  RuleSet set;
  Rule send;
  send.pattern = Pattern(R"(xfer (\d+))");
  send.role = Role::Send;
  send.mbGroup = 1;
  Rule anything;
  anything.pattern = Pattern(R"(.*)");
  anything.role = Role::OtherBusy;
  set.rules = {send, anything};
  EXPECT_EQ(set.match("xfer 3")->role, Role::Send);
  EXPECT_EQ(set.match("xfer 3")->mb, 3);
  EXPECT_EQ(set.match("anything else")->role, Role::OtherBusy);
}

TEST(AnnotationHint, TellsHowToLabelOpsTransfersAndSteps) {
  const std::string hint = annotationHint();
  for (const char* part : {"'F mb=<n>'", "'BW mb=<n>'", "ch=<c>", "'SEND F mb=<n> to=<stage>'",
                           "'RECV B mb=<n> from=<stage>'", "'step <n>'"}) {
    EXPECT_NE(hint.find(part), std::string::npos) << part;
  }
  // The examples it gives are what the bubblescope rule set recognises.
  expectMatches(builtin("bubblescope"), {{"SEND F mb=1 to=2", Role::Send, OpKind::F, 1, 0, 2}});
}

}  // namespace
}  // namespace bubblescope::analysis
