#include "analyzer/result/pipeline_result_codec.h"

#include <type_traits>

namespace bubblescope::analysis {
namespace {

// The layouts this codec was written against: a struct that grows has a field to add here (on
// the one platform the project builds for, x86-64 Linux).
static_assert(sizeof(PipelineResult) == 752, "PipelineResult changed: encode the new field");
static_assert(sizeof(StageResult) == 232, "StageResult changed: encode the new field");
static_assert(sizeof(Gap) == 184, "Gap changed: encode the new field");
static_assert(sizeof(Blame) == 64, "Blame changed: encode the new field");
static_assert(sizeof(WhatIf) == 152, "WhatIf changed: encode the new field");
static_assert(sizeof(RootCause) == 216, "RootCause changed: encode the new field");
static_assert(sizeof(IdleTally) == 152, "IdleTally changed: encode the new field");
static_assert(sizeof(ScheduleMatch) == 48, "ScheduleMatch changed: encode the new field");
static_assert(sizeof(ModelCheck) == 56, "ModelCheck changed: encode the new field");
static_assert(sizeof(ActivationSize) == 56, "ActivationSize changed: encode the new field");

// These travel as their bytes.
static_assert(std::is_trivially_copyable_v<Split>);
static_assert(std::is_trivially_copyable_v<OpRecord>);
static_assert(std::is_trivially_copyable_v<TransferRecord>);
static_assert(std::is_trivially_copyable_v<Bubble>);
static_assert(std::is_trivially_copyable_v<StepInfo>);
static_assert(std::is_trivially_copyable_v<CommWait>);
static_assert(std::is_trivially_copyable_v<BubbleBucket>);
static_assert(std::is_trivially_copyable_v<CauseId>);

void encodeModel(const ModelCheck& m, traces::ByteWriter& out) {
  out.value(m.measured);
  out.value(m.replayed);
  out.value(m.reproduces);
  out.text(m.largest);
}
ModelCheck decodeModel(traces::ByteReader& in) {
  ModelCheck m;
  m.measured = in.value<TimeNs>();
  m.replayed = in.value<TimeNs>();
  m.reproduces = in.value<bool>();
  m.largest = in.text();
  return m;
}

void encodeStage(const StageResult& s, traces::ByteWriter& out) {
  out.value<int32_t>(s.stage);
  out.value<int32_t>(s.rank);
  out.column(s.ranks);
  out.value(s.total);
  out.column(s.perStep);
  out.value(s.slowdown);
  out.value(s.slowdownBounded);
  out.value(s.meanCost);
  out.value(s.memoryBasis);
  out.value(s.deviceMemory);
}
StageResult decodeStage(traces::ByteReader& in) {
  StageResult s;
  s.stage = in.value<int32_t>();
  s.rank = in.value<int32_t>();
  in.column(s.ranks);
  s.total = in.value<Split>();
  in.column(s.perStep);
  s.slowdown = in.value<double>();
  s.slowdownBounded = in.value<bool>();
  s.meanCost = in.value<std::array<TimeNs, 4>>();
  s.memoryBasis = in.value<MemoryBasis>();
  s.deviceMemory = in.value<uint64_t>();
  return s;
}

// A gap: its plain fields as they are laid out, its blame's text after them.
void encodeGap(const Gap& g, traces::ByteWriter& out) {
  out.value<int32_t>(g.stage);
  out.value<int32_t>(g.step);
  out.value(g.start);
  out.value(g.end);
  out.value(g.idle);
  out.value(g.byClass);
  out.value(g.dominant);
  out.value<int32_t>(g.nextOp);
  out.value(g.blame.cause);
  out.value<int32_t>(g.blame.stage);
  out.value<int32_t>(g.blame.toStage);
  out.value(g.blame.op);
  out.value(g.blame.costRatio);
  out.text(g.blame.text);
  out.value(g.freeMemory);
}
Gap decodeGap(traces::ByteReader& in) {
  Gap g;
  g.stage = in.value<int32_t>();
  g.step = in.value<int32_t>();
  g.start = in.value<TimeNs>();
  g.end = in.value<TimeNs>();
  g.idle = in.value<TimeNs>();
  g.byClass = in.value<IdleByClass>();
  g.dominant = in.value<IdleClass>();
  g.nextOp = in.value<int32_t>();
  g.blame.cause = in.value<IdleClass>();
  g.blame.stage = in.value<int32_t>();
  g.blame.toStage = in.value<int32_t>();
  g.blame.op = in.value<Op>();
  g.blame.costRatio = in.value<double>();
  g.blame.text = in.text();
  g.freeMemory = in.value<int64_t>();
  return g;
}

void encodeTally(const IdleTally& t, traces::ByteWriter& out) {
  out.value<int32_t>(t.bubbles);
  out.value(t.idle);
  out.value(t.largest);
  out.column(t.histogram);
  out.value(t.atLeast);
  out.column(t.stepIdle);
  out.column(t.stepLong);
  out.column(t.freeMemory);
}
IdleTally decodeTally(traces::ByteReader& in) {
  IdleTally t;
  t.bubbles = in.value<int32_t>();
  t.idle = in.value<TimeNs>();
  t.largest = in.value<TimeNs>();
  in.column(t.histogram);
  t.atLeast = in.value<decltype(t.atLeast)>();
  in.column(t.stepIdle);
  in.column(t.stepLong);
  in.column(t.freeMemory);
  return t;
}

void encodeRootCause(const RootCause& c, traces::ByteWriter& out) {
  out.value(c.id);
  out.text(c.text);
  out.value(c.win);
  out.value(c.idle);
  out.column(c.steps);
  out.column(c.own);
  out.column(c.knockOns);
  out.value<uint64_t>(c.ownCount);
  out.value<uint64_t>(c.knockOnCount);
  out.column(c.knockOnStages);
  out.value(c.knockOnIdle);
  out.value(c.costRatio);
  out.value(c.meanRatio);
}
RootCause decodeRootCause(traces::ByteReader& in) {
  RootCause c;
  c.id = in.value<CauseId>();
  c.text = in.text();
  c.win = in.value<TimeNs>();
  c.idle = in.value<TimeNs>();
  in.column(c.steps);
  in.column(c.own);
  in.column(c.knockOns);
  c.ownCount = in.value<uint64_t>();
  c.knockOnCount = in.value<uint64_t>();
  in.column(c.knockOnStages);
  c.knockOnIdle = in.value<TimeNs>();
  c.costRatio = in.value<double>();
  c.meanRatio = in.value<bool>();
  return c;
}

void encodeWhatIf(const WhatIf& w, traces::ByteWriter& out) {
  out.text(w.scenario);
  out.text(w.note);
  out.value(w.available);
  out.value(w.stepTime);
  out.value(w.bubbleRate);
  out.value(w.speedup);
  out.value(w.trusted);
  out.column(w.activations);
  out.column(w.activationBytes);
}
WhatIf decodeWhatIf(traces::ByteReader& in) {
  WhatIf w;
  w.scenario = in.text();
  w.note = in.text();
  w.available = in.value<bool>();
  w.stepTime = in.value<TimeNs>();
  w.bubbleRate = in.value<double>();
  w.speedup = in.value<double>();
  w.trusted = in.value<bool>();
  in.column(w.activations);
  in.column(w.activationBytes);
  return w;
}

// A list of records that are not plain bytes: its count, then each.
template <typename T, typename Encode>
void encodeList(const std::vector<T>& list, traces::ByteWriter& out, Encode encode) {
  out.value<uint64_t>(list.size());
  for (const T& item : list) encode(item, out);
}
template <typename T, typename Decode>
void decodeList(std::vector<T>& list, traces::ByteReader& in, size_t least, Decode decode) {
  const size_t n = in.count(least);
  list.reserve(n);
  for (size_t i = 0; i < n; ++i) list.push_back(decode(in));
}

}  // namespace

void encodePipelineResult(const PipelineResult& r, traces::ByteWriter& out) {
  out.value<int32_t>(r.dpRank);
  encodeList(r.stages, out, encodeStage);
  out.column(r.steps);
  out.value(r.total);
  out.text(r.schedule.name);
  out.value<int32_t>(r.schedule.p);
  out.value<int32_t>(r.schedule.m);
  out.value<int32_t>(r.schedule.v);
  out.value(r.schedule.exact);
  out.value(r.schedule.splitsBackward);
  out.value(r.stepTimeMeasured);
  out.value(r.stepTimeIdeal);
  out.value(r.stepTimeStage);
  out.value(r.stepTimeOps);
  out.value(r.slowdown);
  out.value(r.transferMedian);
  out.value(r.tailMedian);
  encodeModel(r.model, out);
  out.column(r.ops);
  out.column(r.opIndex);
  out.column(r.transfers);
  encodeList(r.gaps, out, encodeGap);
  out.column(r.gapIndex);
  out.column(r.bubbles);
  encodeList(r.bubbleTallies, out, encodeTally);
  out.column(r.commWaits);
  out.column(r.topGaps);
  encodeList(r.rootCauses, out, encodeRootCause);
  out.column(r.idealOps);
  encodeList(r.whatIf, out, encodeWhatIf);
  out.text(r.whatIfWithheld);
  out.column(r.activationSize.perMicrobatch);
  out.text(r.activationSize.unknown);
  out.text(r.culprit);
  out.value<int32_t>(r.culpritStage);
  out.value(r.culpritGain);
}

PipelineResult decodePipelineResult(traces::ByteReader& in) {
  PipelineResult r;
  r.dpRank = in.value<int32_t>();
  decodeList(r.stages, in, 8, decodeStage);
  in.column(r.steps);
  r.total = in.value<Split>();
  r.schedule.name = in.text();
  r.schedule.p = in.value<int32_t>();
  r.schedule.m = in.value<int32_t>();
  r.schedule.v = in.value<int32_t>();
  r.schedule.exact = in.value<bool>();
  r.schedule.splitsBackward = in.value<bool>();
  r.stepTimeMeasured = in.value<TimeNs>();
  r.stepTimeIdeal = in.value<TimeNs>();
  r.stepTimeStage = in.value<TimeNs>();
  r.stepTimeOps = in.value<TimeNs>();
  r.slowdown = in.value<double>();
  r.transferMedian = in.value<TimeNs>();
  r.tailMedian = in.value<TimeNs>();
  r.model = decodeModel(in);
  in.column(r.ops);
  in.column(r.opIndex);
  in.column(r.transfers);
  decodeList(r.gaps, in, 8, decodeGap);
  in.column(r.gapIndex);
  in.column(r.bubbles);
  decodeList(r.bubbleTallies, in, 8, decodeTally);
  in.column(r.commWaits);
  in.column(r.topGaps);
  decodeList(r.rootCauses, in, 8, decodeRootCause);
  in.column(r.idealOps);
  decodeList(r.whatIf, in, 8, decodeWhatIf);
  r.whatIfWithheld = in.text();
  in.column(r.activationSize.perMicrobatch);
  r.activationSize.unknown = in.text();
  r.culprit = in.text();
  r.culpritStage = in.value<int32_t>();
  r.culpritGain = in.value<TimeNs>();
  return r;
}

}  // namespace bubblescope::analysis
