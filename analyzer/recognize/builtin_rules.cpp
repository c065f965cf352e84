// The built-in rule sets: the labels real frameworks emit (research/analysis.md §3).
#include "analyzer/recognize/rule_set.h"

namespace bubblescope::analysis {
namespace {

// A rule as written in the tables below.
struct Spec {
  const char* pattern;
  Role role = Role::Op;
  std::optional<OpKind> kind{};
  int kindGroup = 0;
  std::map<std::string, OpKind> kinds{};
  int mb = 0, chunk = 0, peer = 0, stage = 0, step = 0;
};

Rule build(const Spec& s) {
  Rule r;
  r.source = s.pattern;
  r.pattern = Pattern(s.pattern);
  r.role = s.role;
  r.kind = s.kind;
  r.kindGroup = s.kindGroup;
  r.kinds = s.kinds;
  r.mbGroup = s.mb;
  r.chunkGroup = s.chunk;
  r.peerGroup = s.peer;
  r.stageGroup = s.stage;
  r.stepGroup = s.step;
  return r;
}

RuleSet build(const char* name, bool counts, std::initializer_list<Spec> specs) {
  RuleSet set;
  set.name = name;
  set.countsMicrobatches = counts;
  set.memo = RuleSet::newMemo();
  for (const Spec& s : specs) set.rules.push_back(build(s));
  return set;
}

constexpr OpKind F = OpKind::F, B = OpKind::B, W = OpKind::W, BW = OpKind::BW;

std::vector<RuleSet> makeBuiltins() {
  std::vector<RuleSet> sets;
  // What the reference engine emits and what we ask users to emit.
  sets.push_back(build("bubblescope", false,
                       {
                           {R"((F|B|W|BW) mb=(\d+)(?: ch=(\d+))?(?: .*)?)",
                            Role::Op,
                            {},
                            1,
                            {{"F", F}, {"B", B}, {"W", W}, {"BW", BW}},
                            2,
                            3},
                           {R"(SEND (F|B) mb=(\d+)(?: ch=(\d+))? to=(\d+)(?: .*)?)",
                            Role::Send,
                            {},
                            1,
                            {{"F", F}, {"B", B}},
                            2,
                            3,
                            4},
                           {R"(RECV (F|B) mb=(\d+)(?: ch=(\d+))? from=(\d+)(?: .*)?)",
                            Role::Recv,
                            {},
                            1,
                            {{"F", F}, {"B", B}},
                            2,
                            3,
                            4},
                           {R"(step (\d+))", Role::Step, {}, 0, {}, 0, 0, 0, 0, 1},
                           // The named variants: importers keep the framework's own name after it
                           // ("grad_sync grads-reduce-scatter", "optimizer optimizer-inner-step").
                           {R"(optimizer(?: .*)?)", Role::Optimizer},
                           {R"(grad_sync(?: .*)?)", Role::GradSync},
                           {R"(loss|recompute(?: .*)?)", Role::OtherBusy},
                       }));
  // torch.distributed.pipelining: record_function("PP:{stage}{action}{mb}"); I is the input
  // gradient (our B), B the full backward (our BW). GPipe labels "Forward i"/"Backward i".
  sets.push_back(
      build("torch.distributed.pipelining", false,
            {
                {R"(PP:(\d+)(F|I|W|B)(\d+))",
                 Role::Op,
                 {},
                 2,
                 {{"F", F}, {"I", B}, {"W", W}, {"B", BW}},
                 3,
                 0,
                 0,
                 1},
                {R"(PP:(\d+)SEND_(F|B)(\d+))", Role::Send, {}, 2, {{"F", F}, {"B", B}}, 3, 0, 0, 1},
                {R"(PP:(\d+)RECV_(F|B)(\d+))", Role::Recv, {}, 2, {{"F", F}, {"B", B}}, 3, 0, 0, 1},
                {R"(PP:(\d+)REDUCE_GRAD)", Role::GradSync, {}, 0, {}, 0, 0, 0, 1},
                {R"(Forward (\d+))", Role::Op, F, 0, {}, 1},
                {R"(Backward (\d+))", Role::Op, BW, 0, {}, 1},
            }));
  // Zero Bubble's Megatron fork: "F{mb}.{chunk}.{seq}", R = recompute, iter_{rank}_{iter}.
  sets.push_back(build(
      "zero-bubble", false,
      {
          {R"(([FBW])(\d+)\.(\d+)\.(\d+))", Role::Op, {}, 1, {{"F", F}, {"B", B}, {"W", W}}, 2, 3},
          {R"(R\d+\.\d+\.\d+|W_clear\.\d+\.\d+)", Role::OtherBusy},
          {R"(iter_\d+_(\d+))", Role::Step, {}, 0, {}, 0, 0, 0, 0, 1},
      }));
  // Megatron-LM timer names (op-level timelines) and its NVTX p2p function names; no microbatch
  // ids, so ops are counted in order.
  sets.push_back(build(
      "megatron", true,
      {
          {R"(forward-compute)", Role::Op, F},
          {R"(backward-compute)", Role::Op, BW},
          {R"(forward-send|.*p2p_communication\.send_forward)", Role::Send, F},
          {R"(forward-recv|.*p2p_communication\.recv_forward)", Role::Recv, F},
          {R"(backward-send|.*p2p_communication\.send_backward)", Role::Send, B},
          {R"(backward-recv|.*p2p_communication\.recv_backward)", Role::Recv, B},
          // One batch that sends and receives: the rank waits in its receive.
          {R"(forward-send-backward-recv|.*p2p_communication\.send_forward_recv_backward)",
           Role::Recv, B},
          {R"(backward-send-forward-recv|.*p2p_communication\.send_backward_recv_forward)",
           Role::Recv, F},
          // The interleaved schedule's batches: the steady state's receives the next
          // forward's input first.
          {R"(forward-send-forward-recv|.*p2p_communication\.send_forward_recv_forward)",
           Role::Recv, F},
          {R"(backward-send-backward-recv|.*p2p_communication\.send_backward_recv_backward)",
           Role::Recv, B},
          {R"(forward-backward-send-forward-backward-recv|.*p2p_communication\.send_forward_backward_recv_forward_backward)",
           Role::Recv, F},
      }));
  // DeepSpeed pipeline engine instructions.
  sets.push_back(build("deepspeed", true,
                       {
                           {R"(ForwardPass|DeepSpeedEngine\.forward)", Role::Op, F},
                           {R"(BackwardPass|DeepSpeedEngine\.backward)", Role::Op, BW},
                           {R"(SendActivation)", Role::Send, F},
                           {R"(RecvActivation)", Role::Recv, F},
                           {R"(SendGrad)", Role::Send, B},
                           {R"(RecvGrad)", Role::Recv, B},
                           {R"(OptimizerStep)", Role::Optimizer},
                           {R"(ReduceGrads|ReduceTiedGrads)", Role::GradSync},
                       }));
  return sets;
}

}  // namespace

const std::vector<RuleSet>& builtinRuleSets() {
  static const std::vector<RuleSet> sets = makeBuiltins();
  return sets;
}

const RuleSet& commonMarkers() {
  static const RuleSet set = build(
      "markers", false,
      {
          {R"(ProfilerStep#(\d+))", Role::Step, {}, 0, {}, 0, 0, 0, 0, 1},
          {R"(step (\d+))", Role::Step, {}, 0, {}, 0, 0, 0, 0, 1},
          {R"(optimizer(?: .*)?|optimizer_step|Optimizer\.step.*|OptimizerStep)", Role::Optimizer},
          {R"(grad_sync(?: .*)?|allreduce_gradients|.*\.allreduce_gradients)", Role::GradSync},
      });
  return set;
}

const char* annotationHint() {
  return "annotate each op with an NVTX range named 'F mb=<n>', 'B mb=<n>', 'W mb=<n>' or "
         "'BW mb=<n>' (add ' ch=<c>' for model chunks), transfers 'SEND F mb=<n> to=<stage>' / "
         "'RECV B mb=<n> from=<stage>', and each iteration 'step <n>' (docs/analysis.md)";
}

}  // namespace bubblescope::analysis
