#include "analyzer/report/json_report.h"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "analyzer/report/figures.h"
#include "analyzer/report/json_writer.h"

#include "analyzer/report/sections/inventory_section.h"
#include "analyzer/report/sections/job_section.h"
#include "analyzer/report/sections/model_section.h"
#include "analyzer/report/sections/root_cause_section.h"
#include "analyzer/report/sections/split_json.h"
#include "analyzer/report/sections/utilization_report.h"
#include "analyzer/report/sections/what_if_section.h"

namespace bubblescope::analysis {
namespace {

// An op's own members ("chunk", "kind", "mb") go among a record's at their places in key order.
void writeOpJson(const Op& op, JsonWriter& out) {
  out.beginObject();
  out.field("chunk", op.chunk);
  out.field("kind", engine::kindName(op.kind));
  out.field("mb", op.mb);
  out.endObject();
}

void writeBlameJson(const Blame& b, JsonWriter& out) {
  out.beginObject();
  out.field("cause", idleClassKey(b.cause));
  if (b.stage >= 0) {
    if (b.costRatio > 0) out.field("cost_ratio", b.costRatio);
    out.key("op");
    writeOpJson(b.op, out);
    out.field("stage", b.stage);
  }
  out.field("text", b.text);
  out.endObject();
}

void writeStageJson(const StageResult& st, bool detail, JsonWriter& out) {
  out.beginObject();
  // The kinds with a cost, by name ("B", "BW", "F", "W").
  std::vector<std::pair<const char*, TimeNs>> means;
  for (int k = 0; k < 4; ++k) {
    if (st.meanCost[k] > 0)
      means.emplace_back(engine::kindName(static_cast<OpKind>(k)), st.meanCost[k]);
  }
  std::sort(means.begin(), means.end(),
            [](const auto& a, const auto& b) { return std::strcmp(a.first, b.first) < 0; });
  out.key("mean_op_cost_ns").beginObject();
  for (const auto& [name, cost] : means) out.field(name, cost);
  out.endObject();
  if (detail) {
    out.key("per_step").beginArray();
    for (const Split& s : st.perStep) writeSplitJson(s, out);
    out.endArray();
  }
  out.field("rank", st.rank);
  out.field("ranks", st.ranks);
  out.field("slowdown", st.slowdown);
  if (st.slowdownBounded) out.field("slowdown_bounded", true);
  out.field("stage", st.stage);
  out.key("total");
  writeSplitJson(st.total, out);
  out.endObject();
}

// A gap of gaps[], or (`listed`) one of top_gaps[], which a summary holds without gaps[] and
// ops[]: it says which gap it is (`index` into the detailed gaps[]), the op that ended it
// (`next`) and its step's number.
void writeGapJson(const PipelineResult& pl, int index, bool listed, JsonWriter& out) {
  const Gap& g = pl.gaps[static_cast<size_t>(index)];
  out.beginObject();
  out.key("blame");
  writeBlameJson(g.blame, out);
  out.field("dominant", idleClassKey(g.dominant));
  out.field("end_ns", g.end);
  if (g.freeMemory != traces::kBytesUnknown) out.field("free_memory_bytes", g.freeMemory);
  out.key("idle_by_class_ns");
  writeIdleByClassJson(g.byClass, true, out);
  out.field("idle_ns", g.idle);
  if (listed) {
    // Among every gap, as gaps[] of --detail numbers them (a summary's analysis keeps a few).
    out.field("index", pl.gapIndex.empty() ? index : pl.gapIndex[static_cast<size_t>(index)]);
  }
  if (listed && g.nextOp >= 0) {
    out.key("next");
    writeOpJson(pl.opOf(g.nextOp).op, out);
  }
  if (g.nextOp >= 0) out.field("next_op", g.nextOp);
  out.field("stage", g.stage);
  out.field("start_ns", g.start);
  out.field("step", g.step);
  if (listed) out.field("step_number", pl.steps[static_cast<size_t>(g.step)].number);
  out.endObject();
}

void writeWhatIfJson(const WhatIf& w, JsonWriter& out) {
  out.beginObject();
  if (w.available) {
    out.key("activation_memory");
    writeActivationMemoryJson(w, out);
  }
  out.field("available", w.available);
  if (w.available) out.field("bubble_rate", w.bubbleRate);
  out.field("note", w.note);
  out.field("scenario", w.scenario);
  if (w.available) {
    out.field("speedup", w.speedup);
    out.field("step_time_ns", w.stepTime);
    out.field("trusted", w.trusted);
  }
  out.endObject();
}

void writeCommWaitsJson(const PipelineResult& pl, JsonWriter& out) {
  out.key("comm_waits").beginArray();
  for (const auto& w : pl.commWaits) {
    out.beginObject();
    out.field("end_ns", w.end);
    out.field("gap", w.gap);
    out.field("kernel", w.kernel);
    if (w.members.partial()) {
      out.key("members");
      writeTracedMembersJson(w.members, out);
    }
    out.field("rank", w.rank);
    out.field("stage", w.stage);
    out.field("start_ns", w.start);
    out.field("transfer_start_ns", w.transferStart);
    out.endObject();
  }
  out.endArray();
}

void writeOpsJson(const PipelineResult& pl, JsonWriter& out) {
  out.key("ops").beginArray();
  for (const auto& o : pl.ops) {
    out.beginObject();
    out.field("chunk", o.op.chunk);
    out.field("end_ns", o.end);
    out.field("ideal_cost_ns", o.idealCost);
    out.field("kind", engine::kindName(o.op.kind));
    out.field("mb", o.op.mb);
    out.field("stage", o.stage);
    out.field("start_ns", o.start);
    out.field("step", o.step);
    out.endObject();
  }
  out.endArray();
}

void writeTransfersJson(const PipelineResult& pl, JsonWriter& out) {
  out.key("transfers").beginArray();
  for (const auto& t : pl.transfers) {
    out.beginObject();
    out.field("from_stage", t.fromStage);
    out.field("mb", t.mb);
    out.field("pass", engine::kindName(t.pass));
    out.key("recv_ns").beginArray();
    out.value(t.recvStart);
    out.value(t.recvEnd);
    out.endArray();
    out.key("send_ns").beginArray();
    out.value(t.sendStart);
    out.value(t.sendEnd);
    out.endArray();
    out.field("step", t.step);
    out.field("to_stage", t.toStage);
    out.endObject();
  }
  out.endArray();
}

void writePipelineJson(const PipelineResult& pl, bool detail, JsonWriter& out) {
  // A pipeline a summary gives by its figures (PipelineResult::summarised) has only the keys
  // `check` and a table of pipelines read: the others are left out.
  const bool whole = !pl.summarised;
  detail = detail && whole;
  out.beginObject();
  if (whole) {
    const ActivationSize& size = pl.activationSize;
    out.key("activation_bytes_per_microbatch").beginObject();
    out.key("stages");
    size.perMicrobatch.empty() ? out.null() : out.value(size.perMicrobatch);
    out.key("unknown");
    size.perMicrobatch.empty() ? out.value(size.unknown) : out.null();
    out.endObject();
  }
  out.field("bubble_fraction", bubbleShare(pl.total));
  if (whole) {
    out.key("bubble_inventory");
    writeInventoryJson(bubbleInventory(pl), out);
  }
  if (detail) writeCommWaitsJson(pl, out);
  out.key("culprit").beginObject();
  out.field("gain_ns", pl.culpritGain);
  out.field("stage", pl.culpritStage);
  out.field("text", pl.culprit);
  out.endObject();
  out.field("dp_rank", pl.dpRank);
  if (detail) {
    out.key("gaps").beginArray();
    for (size_t i = 0; i < pl.gaps.size(); ++i) writeGapJson(pl, static_cast<int>(i), false, out);
    out.endArray();
  }
  if (whole) {
    out.key("ideal_step").beginArray();
    for (const auto& o : pl.idealOps) {
      out.beginObject();
      out.field("chunk", o.op.chunk);
      out.field("end_ns", o.end);
      out.field("kind", engine::kindName(o.op.kind));
      out.field("mb", o.op.mb);
      out.field("stage", o.stage);
      out.field("start_ns", o.start);
      out.endObject();
    }
    out.endArray();
  }
  out.key("model_check");
  writeModelCheckJson(pl.model, out);
  if (detail) writeOpsJson(pl, out);
  if (whole) {
    out.key("root_causes");
    writeRootCausesJson(pl, detail, out);
  }
  out.key("schedule").beginObject();
  out.field("exact", pl.schedule.exact);
  out.field("m", pl.schedule.m);
  out.field("name", pl.schedule.name);
  out.field("p", pl.schedule.p);
  out.field("splits_backward", pl.schedule.splitsBackward);
  out.field("v", pl.schedule.v);
  out.endObject();
  out.field("slowdown", pl.slowdown);
  out.key("stages").beginArray();
  for (const StageResult& st : pl.stages) writeStageJson(st, detail, out);
  out.endArray();
  out.key("step_time_ns").beginObject();
  out.field("ideal", pl.stepTimeIdeal);
  out.field("measured", pl.stepTimeMeasured);
  out.field("measured_op_costs", pl.stepTimeOps);
  out.field("stage_means", pl.stepTimeStage);
  out.endObject();
  out.key("steps").beginArray();
  for (const auto& s : pl.steps) {
    out.beginObject();
    out.field("end_ns", s.end);
    out.field("number", s.number);
    out.field("start_ns", s.start);
    out.endObject();
  }
  out.endArray();
  out.field("summarised", pl.summarised);
  out.field("tail_median_ns", pl.tailMedian);
  if (whole) {
    // Kept beside root_causes (gates read it), whole: a summary has no gaps[] to point into.
    out.key("top_gaps").beginArray();
    for (int g : pl.topGaps) writeGapJson(pl, g, true, out);
    out.endArray();
  }
  out.key("total");
  writeSplitJson(pl.total, out);
  out.field("transfer_median_ns", pl.transferMedian);
  if (detail) writeTransfersJson(pl, out);
  if (whole) {
    out.key("what_if").beginArray();
    for (const WhatIf& w : pl.whatIf) writeWhatIfJson(w, out);
    out.endArray();
    out.key("what_if_withheld");
    pl.whatIfWithheld.empty() ? out.null() : out.value(pl.whatIfWithheld);
  }
  out.endObject();
}

}  // namespace

void writeJsonReport(const AnalysisResult& r, std::ostream& stream, int indent, JsonDetail detail) {
  JsonWriter out(stream, indent);
  out.beginObject();
  out.key("clock").beginObject();
  out.field("aligned", r.clock.enabled);
  out.field("max_correction_ns", r.clock.maxCorrection);
  out.field("offsets_ns", r.clock.offsets);
  out.endObject();
  if (r.job.present) {
    out.key("job");
    writeJobJson(r.job, out);
  }
  out.key("pipelines").beginArray();
  for (const PipelineResult& pl : r.pipelines) {
    writePipelineJson(pl, detail == JsonDetail::Full, out);
  }
  out.endArray();
  out.key("run").beginObject();
  out.field("command", r.command);
  out.field("dir", r.runDir);
  out.field("dp", r.dp);
  out.field("dropped_events", r.droppedEvents);
  out.key("op_inference").beginObject();
  out.field("confidence", r.inference.confidence);
  out.field("evidence", r.inference.evidence);
  out.field("from_p2p", r.inference.fromP2p);
  out.endObject();
  out.field("ops_inferred", r.opsInferred);
  out.field("pp", r.pp);
  out.field("ranks", r.ranks);
  out.field("rule_set", r.ruleSet);
  out.field("topology_source", r.topologySource);
  out.field("tp", r.tp);
  // The capture's first step, left out as warm-up (null: every step in range).
  out.field("warmup_step_left_out", r.warmupStepLeftOut);
  out.endObject();
  out.field("schema_version", AnalysisResult::kSchemaVersion);
  out.field("tool", "bubblescope");
  if (r.utilization) {
    out.key("utilization");
    writeUtilizationJson(*r.utilization, out);
  }
  out.field("warnings", r.warnings);
  out.endObject();
}

std::string jsonReportText(const AnalysisResult& r, int indent, JsonDetail detail) {
  std::ostringstream out;
  writeJsonReport(r, out, indent, detail);
  return out.str();
}

}  // namespace bubblescope::analysis
