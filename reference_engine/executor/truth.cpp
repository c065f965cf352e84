#include "reference_engine/executor/truth.h"

#include "reference_engine/executor/annotator.h"
#include "reference_engine/executor/config_json.h"

namespace bubblescope::engine {

void writeTruthJson(const EngineConfig& c, const std::vector<StageRecord>& stages, int64_t startNs,
                    int64_t endNs, const std::string& outcome, std::ostream& stream) {
  const Schedule& s = c.schedule;
  {
    // Members in the byte order of their names, as nlohmann wrote the file (json_writer.h).
    traces::JsonWriter out(stream, 1);
    out.beginObject();
    out.field("clock", "CLOCK_REALTIME");
    out.field("command", c.commandLine);
    out.field("compute", computeModeName(c.compute));
    out.key("costs_ms");
    writeCostsJson(c.costs, out);
    out.field("end_ns", endNs);
    out.key("faults");
    // Where each mismatch makes the two stages block, so a debugger's answer can be checked.
    writeFaultsJson(c.faults, out, &s);
    // Only a run without labels says so: a labelled run's truth stays as it was.
    if (!c.labels) out.field("labels", false);
    out.field("layout", s.layout == ChunkLayout::V ? "v" : "looped");
    const bool mlp = c.compute == ComputeMode::Mlp;
    if (mlp) {
      // Every stage learns the loss through grad_sync; stage 0's copy is the run's.
      out.key("loss").beginArray();
      if (!stages.empty()) {
        for (const StepRecord& step : stages.front().steps) out.value(step.loss.value_or(0.0));
      }
      out.endArray();
    }
    out.field("m", s.m);
    if (mlp) {
      out.key("mlp").beginObject();
      out.field("batch", c.mlp.batch);
      out.field("layers", s.virtualStages());
      out.field("lr", c.mlp.lr);
      out.field("max_grad_norm", c.mlp.maxGradNorm);
      out.field("width", c.mlp.width);
      out.endObject();
    }
    out.field("nvtx_compiled_in", nvtxCompiledIn());
    out.field("outcome", outcome);
    out.field("p", s.p);
    out.field("payload_bytes", c.payloadBytes);
    out.field("schedule", c.scheduleName);
    out.field("schedule_kind", scheduleName(s.kind));
    out.field("schema_version", kTruthSchemaVersion);
    out.field("seed", c.seed);
    out.key("stages").beginArray();
    for (const StageRecord& stage : stages) writeStageRecordJson(stage, out);
    out.endArray();
    out.field("start_ns", startNs);
    out.field("steps", c.steps);
    out.field("v", s.v);
    out.endObject();
  }
  stream << "\n";
}

}  // namespace bubblescope::engine
