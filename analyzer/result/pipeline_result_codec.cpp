#include "analyzer/result/pipeline_result_codec.h"

#include <type_traits>

#include "traces/model/field_codec.h"

namespace bubblescope::analysis {
namespace {

// The layouts this codec was written against: a struct that grows has a field to add here (on
// the one platform the project builds for, x86-64 Linux).
static_assert(sizeof(PipelineResult) == 752, "PipelineResult changed: encode the new field");
static_assert(sizeof(StageResult) == 264, "StageResult changed: encode the new field");
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

}  // namespace

// Each struct's fields, in one order for both directions (traces/model/field_codec.h finds these
// by the struct's namespace).
template <typename F, traces::FieldsOf<ModelCheck> S>
void fields(F& f, S& m) {
  f(m.measured), f(m.replayed), f(m.reproduces), f(m.largest);
}

template <typename F, traces::FieldsOf<ScheduleMatch> S>
void fields(F& f, S& m) {
  f(m.name), f(m.p), f(m.m), f(m.v), f(m.exact), f(m.splitsBackward);
}

// As the column of Splits it packs (the bytes a vector of them sent).
template <typename F, traces::FieldsOf<SplitSeries> S>
void fields(F& f, S& series) {
  if constexpr (std::is_const_v<S>) {
    f(std::vector<Split>(series.begin(), series.end()));
  } else {
    std::vector<Split> all;
    f(all);
    series.reserve(all.size());
    for (const Split& s : all) series.push_back(s);
  }
}

template <typename F, traces::FieldsOf<StageResult> S>
void fields(F& f, S& s) {
  f(s.stage), f(s.rank), f(s.ranks), f(s.total), f(s.perStep), f(s.slowdown);
  f(s.slowdownBounded), f(s.meanCost), f(s.memoryBasis), f(s.deviceMemory);
}

template <typename F, traces::FieldsOf<Blame> S>
void fields(F& f, S& b) {
  f(b.cause), f(b.stage), f(b.toStage), f(b.op), f(b.costRatio), f(b.text);
}

template <typename F, traces::FieldsOf<Gap> S>
void fields(F& f, S& g) {
  f(g.stage), f(g.step), f(g.start), f(g.end), f(g.idle), f(g.byClass), f(g.dominant);
  f(g.nextOp), f(g.blame), f(g.freeMemory);
}

template <typename F, traces::FieldsOf<IdleTally> S>
void fields(F& f, S& t) {
  f(t.bubbles), f(t.idle), f(t.largest), f(t.histogram), f(t.atLeast), f(t.stepIdle);
  f(t.stepLong), f(t.freeMemory);
}

template <typename F, traces::FieldsOf<RootCause> S>
void fields(F& f, S& c) {
  f(c.id), f(c.text), f(c.win), f(c.idle), f(c.steps), f(c.own), f(c.knockOns), f(c.ownCount);
  f(c.knockOnCount), f(c.knockOnStages), f(c.knockOnIdle), f(c.costRatio), f(c.meanRatio);
}

template <typename F, traces::FieldsOf<WhatIf> S>
void fields(F& f, S& w) {
  f(w.scenario), f(w.note), f(w.available), f(w.stepTime), f(w.bubbleRate), f(w.speedup);
  f(w.trusted), f(w.activations), f(w.activationBytes);
}

template <typename F, traces::FieldsOf<ActivationSize> S>
void fields(F& f, S& a) {
  f(a.perMicrobatch), f(a.unknown);
}

template <typename F, traces::FieldsOf<PipelineResult> S>
void fields(F& f, S& r) {
  f(r.dpRank), f(r.summarised), f(r.stages), f(r.steps), f(r.total), f(r.schedule);
  f(r.stepTimeMeasured), f(r.stepTimeIdeal), f(r.stepTimeStage), f(r.stepTimeOps), f(r.slowdown);
  f(r.transferMedian);
  f(r.tailMedian), f(r.model), f(r.ops), f(r.opIndex), f(r.transfers), f(r.gaps), f(r.gapIndex);
  f(r.bubbles), f(r.bubbleTallies), f(r.commWaits), f(r.topGaps), f(r.rootCauses), f(r.idealOps);
  f(r.whatIf), f(r.whatIfWithheld), f(r.activationSize), f(r.culprit), f(r.culpritStage);
  f(r.culpritGain);
}

void encodePipelineResult(const PipelineResult& r, traces::ByteWriter& out) {
  traces::writeFields(r, out);
}

PipelineResult decodePipelineResult(traces::ByteReader& in) {
  return traces::readFields<PipelineResult>(in);
}

}  // namespace bubblescope::analysis
