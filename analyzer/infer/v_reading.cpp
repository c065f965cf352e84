#include "analyzer/infer/v_reading.h"

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

// One step of the pattern as calls and ops, in the order the stage posts and runs them.
struct Item {
  bool isCall;
  TemplateCall call;
  Op op;
  bool ownInput;  // an op whose input is on this stage (a fresh F0, the turn of the V, a W)
};

std::vector<Item> itemsOf(const std::vector<Op>& pattern, int s, int p) {
  std::vector<Item> items;
  for (const Op& op : pattern) {
    const auto in = inputOf(op, s, p);
    if (in) items.push_back({true, *in, {}, false});
    items.push_back({false, {}, op, !in.has_value()});
    if (const auto out = outputOf(op, s, p)) items.push_back({true, *out, {}, false});
  }
  return items;
}

}  // namespace

VStageReading readStageAs(const std::vector<Op>& pattern, int stage, int p,
                          const std::vector<VCall>& calls) {
  VStageReading out;
  const std::vector<Item> items = itemsOf(pattern, stage, p);
  size_t perRepeat = 0;
  for (const Item& i : items) perRepeat += i.isCall;
  if (perRepeat == 0 || calls.empty() || calls.size() % perRepeat != 0) return out;
  out.repeats = static_cast<int>(calls.size() / perRepeat);
  // The ops between two calls: those after a receive's op start right after it, and an op that
  // needs nothing from another stage, up to the send it feeds, right before that send. Other
  // calls between them (the step's all-reduce) then fall between the two.
  std::vector<std::pair<Op, bool>> pending;  // (op, needs nothing from another stage)
  int lastGroup = -1;
  auto place = [&](int nextGroup, bool nextIsSend) {
    size_t tail = pending.size();
    if (nextIsSend && tail > 0) {
      --tail;  // the op that makes what the send carries
      while (tail > 0 && pending[tail - 1].second && pending[tail - 1].first.kind != OpKind::W)
        --tail;
    }
    const int after = lastGroup + 1;
    const int before = nextGroup < 0 ? after : std::max(nextGroup, after);
    for (size_t i = 0; i < pending.size(); ++i) {
      out.ops.push_back({pending[i].first.kind, pending[i].first.chunk, i < tail ? after : before});
    }
    pending.clear();
  };
  size_t c = 0;
  for (int r = 0; r < out.repeats; ++r) {
    for (const Item& item : items) {
      if (!item.isCall) {
        pending.emplace_back(item.op, item.ownInput);
        continue;
      }
      const VCall& seen = calls[c];
      if (seen.kind != item.call.kind) return VStageReading{};
      const bool send = seen.kind == CutKind::ActOut || seen.kind == CutKind::GradOut;
      place(seen.group, send);
      out.messages.push_back(item.call.message);
      lastGroup = seen.group;
      ++c;
    }
  }
  place(-1, false);
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
