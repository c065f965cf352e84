#include "analyzer/infer/v_reading.h"

#include <algorithm>
#include <map>
#include <optional>

#include "reference_engine/schedule/schedule.h"

namespace bubblescope::analysis {
namespace {

using engine::Op;
using engine::OpKind;

struct TemplateCall {
  CutKind kind;
  VMessage message;
};

// What a V's link carries for an op of this pass and chunk: a chunk's data stays in its chunk
// from stage to stage (it changes only at the turns, which stay on one stage).
VMessage messageOf(OpKind kind, int chunk) {
  if (kind == OpKind::F) return chunk == 0 ? VMessage::A0 : VMessage::A1;
  return chunk == 0 ? VMessage::G0 : VMessage::G1;
}

// The stage the op's neighbour in the model sits on, one virtual stage before (`input`) or after
// it in its pass; -1 where there is none or it is this stage (the loss, the turn of the V, a W).
int neighbourOf(const Op& op, int s, int p, bool input) {
  if (op.kind == OpKind::W) return -1;
  engine::Schedule v;
  v.p = p;
  v.v = 2;
  v.layout = engine::ChunkLayout::V;
  const int vs = v.virtualStage(s, op.chunk);
  const int step = (op.kind == OpKind::F) == input ? -1 : 1;
  const int other = vs + step;
  if (other < 0 || other >= v.virtualStages() || v.stageOf(other) == s) return -1;
  return v.stageOf(other);
}

std::optional<TemplateCall> inputOf(const Op& op, int s, int p) {
  const int from = neighbourOf(op, s, p, true);
  if (from < 0) return std::nullopt;
  return TemplateCall{from < s ? CutKind::ActIn : CutKind::GradIn, messageOf(op.kind, op.chunk)};
}

std::optional<TemplateCall> outputOf(const Op& op, int s, int p) {
  const int to = neighbourOf(op, s, p, false);
  if (to < 0) return std::nullopt;
  return TemplateCall{to > s ? CutKind::ActOut : CutKind::GradOut, messageOf(op.kind, op.chunk)};
}

}  // namespace

VLinks sendsOf(const std::vector<Op>& pattern, int stage, int p) {
  VLinks out;
  for (const Op& op : pattern) {
    if (const auto o = outputOf(op, stage, p))
      (o->kind == CutKind::ActOut ? out.down : out.up).push_back(o->message);
  }
  return out;
}

VLinks inputsOf(const std::vector<Op>& pattern, int stage, int p) {
  VLinks out;
  for (const Op& op : pattern) {
    if (const auto in = inputOf(op, stage, p))
      (in->kind == CutKind::ActIn ? out.down : out.up).push_back(in->message);
  }
  return out;
}

VStageReading readStageAs(const std::vector<Op>& pattern, int stage, int p,
                          const std::vector<VCall>& calls, const VLinks& incoming) {
  VStageReading out;
  std::vector<CutKind> sends;  // one step's, in order
  std::vector<VCarried> sent;
  for (const Op& op : pattern) {
    if (const auto o = outputOf(op, stage, p)) {
      sends.push_back(o->kind);
      sent.push_back({o->message, op.mb});
    }
  }
  // The calls as the pattern explains them: sends in its order, receives typed by what arrives.
  size_t nSends = 0, nPrev = 0, nNext = 0;
  for (const VCall& c : calls) {
    nSends += isSend(c.kind);
    nPrev += c.kind == CutKind::ActIn;
    nNext += c.kind == CutKind::GradIn;
  }
  if (sends.empty() || nSends == 0 || nSends % sends.size() != 0) return out;
  const size_t repeats = nSends / sends.size();
  if (nPrev != repeats * incoming.down.size() || nNext != repeats * incoming.up.size()) return out;
  out.messages.resize(calls.size());
  std::vector<int> sendGroups;
  std::map<VMessage, std::vector<size_t>> receives;  // per type, the calls in order
  size_t iSend = 0, iPrev = 0, iNext = 0;
  for (size_t i = 0; i < calls.size(); ++i) {
    const VCall& c = calls[i];
    if (isSend(c.kind)) {
      if (c.kind != sends[iSend % sends.size()]) return out;
      out.messages[i] = sent[iSend % sent.size()];
      sendGroups.push_back(c.group);
      ++iSend;
    } else if (isReceive(c.kind)) {
      const bool prev = c.kind == CutKind::ActIn;
      const auto& list = prev ? incoming.down : incoming.up;
      size_t& k = prev ? iPrev : iNext;
      out.messages[i].message = list[k++ % list.size()];
      receives[out.messages[i].message].push_back(i);
    }
  }
  // Every op in the stretch before the send it feeds, else as early as the op before it, the
  // last send before it and its own receive allow.
  std::map<VMessage, size_t> taken;
  int earliest = 0;
  size_t s = 0;
  for (size_t r = 0; r < repeats; ++r) {
    for (const Op& op : pattern) {
      int at = earliest, received = -1;
      if (const auto in = inputOf(op, stage, p)) {
        const auto& list = receives[in->message];
        size_t& k = taken[in->message];
        if (k >= list.size()) return VStageReading{};
        received = calls[list[k]].group + 1;
        out.messages[list[k++]].mb = op.mb;  // a receive carries what its op needs
        at = std::max(at, received);
      }
      if (outputOf(op, stage, p)) {
        const int pin = sendGroups[s++];
        if (pin < at) return VStageReading{};  // sent before its op could run
        at = pin;
        earliest = pin + 1;
      } else {
        earliest = at;
      }
      out.receivedRightBefore += at == received;
      out.ops.push_back({op.kind, op.chunk, at, op.mb});
    }
  }
  out.repeats = static_cast<int>(repeats);
  out.matched = true;
  return out;
}

OpKind passOf(VMessage m) {
  return m == VMessage::A0 || m == VMessage::A1 ? OpKind::F : OpKind::B;
}

int chunkOf(VMessage m) {
  return m == VMessage::G1 || m == VMessage::A1 ? 1 : 0;
}

}  // namespace bubblescope::analysis
