#include "reference_engine/executor/truth.h"

#include <stdexcept>

#include "reference_engine/executor/annotator.h"
#include "reference_engine/executor/config_json.h"
#include "reference_engine/executor/order_fault.h"
#include "reference_engine/executor/range_names.h"
#include "traces/files/output_file.h"

namespace bubblescope::engine {

using nlohmann::json;

json buildTruth(const EngineConfig& c, std::vector<json> stageParts, int64_t startNs,
                int64_t endNs) {
  const Schedule& s = c.schedule;
  json truth = {{"schema_version", kTruthSchemaVersion},
                {"clock", "CLOCK_REALTIME"},
                {"schedule", c.scheduleName},
                {"schedule_kind", scheduleName(s.kind)},
                {"p", s.p},
                {"m", s.m},
                {"v", s.v},
                {"layout", s.layout == ChunkLayout::V ? "v" : "looped"},
                {"steps", c.steps},
                {"compute", computeModeName(c.compute)},
                {"costs_ms", costsToJson(c.costs)},
                {"payload_bytes", c.payloadBytes},
                {"seed", c.seed},
                {"faults", faultsToJson(c.faults)},
                {"nvtx_compiled_in", nvtxCompiledIn()},
                {"command", c.commandLine},
                {"start_ns", startNs},
                {"end_ns", endNs}};
  // Only a run without labels says so: a labelled run's truth stays as it was.
  if (!c.labels) truth["labels"] = false;
  // Where each mismatch makes the two stages block, so a debugger's answer can be checked.
  for (json& mm : truth["faults"]["mismatches"]) {
    const MismatchEffect e = planMismatch(s, {mm.at("stage").get<int>(), mm.at("mb").get<int>()});
    mm["op"] = opRangeName(e.op);
    mm["runs_after"] = opRangeName(e.after);
    mm["op_index"] = e.index;
    // The ops it finishes in the step before it blocks: all up to the one it waits for, but the
    // late one.
    mm["stops_at_op"] = e.afterIndex - 1;
    mm["peer"] = e.peer;
    mm["stage_waits"] = e.stageWaits;
    mm["peer_waits"] = e.peerWaits;
  }
  if (c.compute == ComputeMode::Mlp) {
    truth["mlp"] = {{"width", c.mlp.width},
                    {"batch", c.mlp.batch},
                    {"lr", c.mlp.lr},
                    {"max_grad_norm", c.mlp.maxGradNorm},
                    {"layers", s.virtualStages()}};
    // Every stage learns the loss through grad_sync; stage 0's copy is the run's.
    json loss = json::array();
    if (!stageParts.empty()) {
      for (const auto& step : stageParts.front().at("steps"))
        loss.push_back(step.value("loss", 0.0));
    }
    truth["loss"] = std::move(loss);
  }
  truth["stages"] = json::array();
  for (auto& part : stageParts) truth["stages"].push_back(std::move(part));
  return truth;
}

void writeJsonFile(const std::filesystem::path& path, const json& j) {
  traces::writeOutputFile(path, j.dump(1) + "\n");
}

}  // namespace bubblescope::engine
