#include "reference_engine/sim/result_json.h"

#include "reference_engine/sim/paper_formulas.h"
#include "traces/json/json_writer.h"

namespace bubblescope::engine {
namespace {

using traces::JsonWriter;

void writeKindCosts(const KindCosts& k, JsonWriter& out) {
  out.beginObject();
  out.field("b_ns", k.b);
  out.field("bw_ns", k.of(OpKind::BW));
  out.field("f_ns", k.f);
  out.field("w_ns", k.w);
  out.endObject();
}

// perKind's four costs, with what else the costs say sorted in between.
void writeCosts(const SimCosts& costs, JsonWriter& out) {
  const KindCosts& k = costs.perKind;
  out.beginObject();
  out.field("b_ns", k.b);
  out.field("bw_ns", k.of(OpKind::BW));
  out.field("f_ns", k.f);
  out.key("memory").beginObject();
  out.field("m_b", costs.memory.mB);
  out.field("m_w", costs.memory.mW);
  out.endObject();
  out.field("per_op", !costs.perOp.empty());
  if (!costs.perStage.empty()) {
    out.key("per_stage").beginArray();
    for (const KindCosts& stage : costs.perStage) writeKindCosts(stage, out);
    out.endArray();
  }
  out.field("transfer_ns", costs.transfer);
  out.field("w_ns", k.w);
  out.endObject();
}

void writePaper(const PaperPrediction& paper, JsonWriter& out) {
  out.beginObject();
  out.field("bubble_formula", paper.bubbleFormula);
  out.field("bubble_ns", paper.bubble);
  out.field("conditions", paper.conditions);
  out.field("conditions_hold", paper.conditionsHold);
  out.field("memory_formula", paper.memoryFormula);
  out.field("peak_activations_m_b", paper.peakActivations);
  out.endObject();
}

void writeStage(const std::vector<Op>& order, const StageTimeline& t,
                const std::vector<TimeNs>& ready, size_t stage, JsonWriter& out) {
  out.beginObject();
  out.field("busy_ns", t.busy);
  out.field("first_start_ns", t.firstStart);
  out.field("idle_ns", t.idle);
  out.field("last_end_ns", t.lastEnd);
  out.key("ops").beginArray();
  for (size_t i = 0; i < t.ops.size(); ++i) {
    const Op& op = order[i];
    out.beginObject();
    out.field("chunk", op.chunk);
    out.field("end_ns", t.ops[i].end);
    out.field("kind", kindName(op.kind));
    out.field("mb", op.mb);
    out.field("ready_ns", ready[i]);
    out.field("start_ns", t.ops[i].start);
    out.endObject();
  }
  out.endArray();
  out.field("peak_memory", t.peakMemory);
  out.field("span_ns", t.span());
  out.field("stage", stage);
  out.endObject();
}

}  // namespace

void writeSimulationJson(const Schedule& s, const SimCosts& costs, const SimResult& r,
                         std::ostream& stream) {
  JsonWriter out(stream);
  out.beginObject();
  out.field("bubble_ns", r.stages.empty() ? 0 : r.bubble());
  out.field("bubble_rate", r.bubbleRate);
  out.key("costs");
  writeCosts(costs, out);
  out.field("idle_fraction", r.idleFraction);
  out.field("layout", s.layout == ChunkLayout::V ? "v" : "looped");
  out.field("longest_stage", r.longestStage);
  out.field("m", s.m);
  out.field("makespan_ns", r.makespan);
  out.field("p", s.p);
  if (const auto paper = paperPrediction(s, costs.perKind)) {
    out.key("paper");
    writePaper(*paper, out);
  }
  out.field("peak_memory", r.peakMemory);
  out.field("schedule", scheduleName(s.kind));
  out.key("stages").beginArray();
  // Read off the replay again: the simulator does not hold them (OpTiming).
  const std::vector<std::vector<TimeNs>> ready = readyTimes(PreparedSchedule(s), costs, r);
  for (size_t st = 0; st < r.stages.size(); ++st) {
    writeStage(s.stages[st], r.stages[st], ready[st], st, out);
  }
  out.endArray();
  out.field("v", s.v);
  out.endObject();
}

}  // namespace bubblescope::engine
