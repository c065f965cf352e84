#include "analyzer/infer/v_reading.h"

#include <algorithm>
#include <map>
#include <optional>

namespace bubblescope::analysis {
namespace {

using engine::Op;
using engine::OpKind;

struct TemplateCall {
  CutKind kind;
  VMessage message;
};

// Where an op of a V on stage s of p gets its input and sends its output (none: on the stage).
std::optional<TemplateCall> inputOf(const Op& op, int s, int p) {
  const bool forward = op.kind == OpKind::F;
  if (op.kind == OpKind::W) return std::nullopt;
  if (op.chunk == 0) {
    if (forward)
      return s > 0 ? std::optional<TemplateCall>({CutKind::ActIn, VMessage::A0}) : std::nullopt;
    return s < p - 1 ? std::optional<TemplateCall>({CutKind::GradIn, VMessage::G0}) : std::nullopt;
  }
  if (forward)
    return s < p - 1 ? std::optional<TemplateCall>({CutKind::GradIn, VMessage::A1}) : std::nullopt;
  return s > 0 ? std::optional<TemplateCall>({CutKind::ActIn, VMessage::G1}) : std::nullopt;
}

std::optional<TemplateCall> outputOf(const Op& op, int s, int p) {
  const bool forward = op.kind == OpKind::F;
  if (op.kind == OpKind::W) return std::nullopt;
  if (op.chunk == 0) {
    if (forward)
      return s < p - 1 ? std::optional<TemplateCall>({CutKind::ActOut, VMessage::A0})
                       : std::nullopt;
    return s > 0 ? std::optional<TemplateCall>({CutKind::GradOut, VMessage::G0}) : std::nullopt;
  }
  if (forward)
    return s > 0 ? std::optional<TemplateCall>({CutKind::GradOut, VMessage::A1}) : std::nullopt;
  return s < p - 1 ? std::optional<TemplateCall>({CutKind::ActOut, VMessage::G1}) : std::nullopt;
}

bool isSend(CutKind k) {
  return k == CutKind::ActOut || k == CutKind::GradOut;
}

}  // namespace

VIncoming sendsOf(const std::vector<Op>& pattern, int stage, int p) {
  VIncoming out;
  for (const Op& op : pattern) {
    if (const auto o = outputOf(op, stage, p))
      (o->kind == CutKind::ActOut ? out.fromPrev : out.fromNext).push_back(o->message);
  }
  return out;  // fromPrev: towards the last rank; fromNext: towards rank 0
}

VIncoming inputsOf(const std::vector<Op>& pattern, int stage, int p) {
  VIncoming out;
  for (const Op& op : pattern) {
    if (const auto in = inputOf(op, stage, p))
      (in->kind == CutKind::ActIn ? out.fromPrev : out.fromNext).push_back(in->message);
  }
  return out;
}

VStageReading readStageAs(const std::vector<Op>& pattern, int stage, int p,
                          const std::vector<VCall>& calls, const VIncoming& incoming) {
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
  if (nPrev != repeats * incoming.fromPrev.size() || nNext != repeats * incoming.fromNext.size())
    return out;
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
    } else if (c.kind == CutKind::ActIn || c.kind == CutKind::GradIn) {
      const bool prev = c.kind == CutKind::ActIn;
      const auto& list = prev ? incoming.fromPrev : incoming.fromNext;
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
