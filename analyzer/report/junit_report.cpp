#include "analyzer/report/junit_report.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "analyzer/report/figures.h"
#include "analyzer/report/format.h"
#include "analyzer/report/junit_xml.h"
#include "analyzer/report/sections/inventory_section.h"
#include "analyzer/report/sections/root_cause_section.h"
#include "analyzer/report/sections/what_if_section.h"

namespace bubblescope::analysis {
namespace {

std::string number(double v, int decimals) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string ms(TimeNs t) {
  return formatMs(t, 3);
}

double seconds(TimeNs t) {
  return static_cast<double>(t) / 1e9;
}

void splitProperties(const Split& s, JunitProperties& props) {
  props.emplace_back("span_ms", ms(s.span));
  props.emplace_back("compute_ms", ms(s.compute));
  props.emplace_back("exposed_comm_ms", ms(s.exposedComm));
  props.emplace_back("other_busy_ms", ms(s.otherBusy));
  props.emplace_back("idle_ms", ms(s.idle));
  props.emplace_back("idle_share_pct", number(100.0 * bubbleShare(s), 3));
  for (int c = 0; c < kIdleClasses; ++c) {
    props.emplace_back(std::string("idle_") + idleClassKey(idleClassAt(c)) + "_ms",
                       ms(s.idleByClass[c]));
  }
}

std::string splitLine(const Split& s) {
  std::ostringstream out;
  out << "compute " << formatMs(s.compute) << " ms (" << formatPercent(share(s.compute, s.span))
      << "), comm " << formatMs(s.exposedComm) << " ms, other " << formatMs(s.otherBusy)
      << " ms, idle " << formatMs(s.idle) << " ms (" << formatPercent(bubbleShare(s)) << ")";
  bool first = true;
  for (int c = 0; c < kIdleClasses; ++c) {
    if (s.idleByClass[c] <= 0) continue;
    out << (first ? ": " : ", ") << idleClassName(idleClassAt(c)) << " "
        << formatMs(s.idleByClass[c]) << " ms";
    first = false;
  }
  return out.str();
}

// The model's check as a case's properties, and its failure when the model does not reproduce
// the job.
void addModelCheck(const ModelCheck& m, JunitCase& c) {
  c.properties.emplace_back("model_replayed_step_ms", ms(m.replayed));
  c.properties.emplace_back("model_reproduces", m.reproduces ? "true" : "false");
  if (!m.reproduces) c.failure = JunitFailure{modelCheckSentence(m), "model", m.largest};
}

JunitCase jobCase(const JobResult& job) {
  JunitCase c;
  c.classname = "bubblescope.job";
  c.name = "job";
  c.seconds = seconds(job.stepTimeMeasured);
  c.properties.emplace_back("slowdown", number(job.slowdown, 4));
  c.properties.emplace_back("step_time_measured_ms", ms(job.stepTimeMeasured));
  c.properties.emplace_back("step_time_ideal_ms", ms(job.stepTimeIdeal));
  addModelCheck(job.model, c);
  c.systemOut = job.culprit + "\n";
  return c;
}

JunitCase pipelineCase(const PipelineResult& pl) {
  JunitCase c;
  c.classname = "bubblescope.pipeline" + std::to_string(pl.dpRank);
  c.name = "pipeline " + std::to_string(pl.dpRank);
  c.seconds = seconds(pl.stepTimeMeasured);  // CI trend charts then plot the step time
  auto& p = c.properties;
  p.emplace_back("culprit", pl.culprit);  // first, as every report opens a pipeline with it
  p.emplace_back("schedule", pl.schedule.name);
  p.emplace_back("schedule_exact", pl.schedule.exact ? "true" : "false");
  p.emplace_back("p", std::to_string(pl.schedule.p));
  p.emplace_back("m", std::to_string(pl.schedule.m));
  p.emplace_back("v", std::to_string(pl.schedule.v));
  p.emplace_back("steps", std::to_string(pl.steps.size()));
  p.emplace_back("step_time_measured_ms", ms(pl.stepTimeMeasured));
  addModelCheck(pl.model, c);
  p.emplace_back("step_time_ideal_ms", ms(pl.stepTimeIdeal));
  p.emplace_back("step_time_stage_means_ms", ms(pl.stepTimeStage));
  p.emplace_back("step_time_measured_op_costs_ms", ms(pl.stepTimeOps));
  p.emplace_back("slowdown", number(pl.slowdown, 4));
  p.emplace_back("transfer_median_ms", ms(pl.transferMedian));
  p.emplace_back("tail_median_ms", ms(pl.tailMedian));
  splitProperties(pl.total, p);
  p.emplace_back("parts_add_up", partsAddUp(pl) ? "true" : "false");
  for (const auto& w : pl.whatIf) {
    if (!w.available) continue;
    p.emplace_back("what_if: " + w.scenario + ": step_ms", ms(w.stepTime));
    if (w.activations.empty()) continue;
    p.emplace_back("what_if: " + w.scenario + ": activations_microbatches",
                   number(*std::max_element(w.activations.begin(), w.activations.end()), 2));
    if (!w.activationBytes.empty()) {
      p.emplace_back(
          "what_if: " + w.scenario + ": activations_bytes",
          std::to_string(*std::max_element(w.activationBytes.begin(), w.activationBytes.end())));
    }
  }

  std::ostringstream out;
  out << "culprit: " << pl.culprit << "\n"
      << scheduleDescription(pl.schedule) << ", " << pl.steps.size() << " step(s)\n"
      << "step time " << formatMs(pl.stepTimeMeasured) << " ms measured, "
      << formatMs(pl.stepTimeIdeal) << " ms ideal: slowdown S = " << formatRatio(pl.slowdown)
      << "\nall stages: " << splitLine(pl.total) << "\n"
      << (partsAddUp(pl) ? "the parts add up exactly (compute + comm + other + idle = span)\n"
                         : "the parts do NOT add up exactly: please report\n");
  if (pl.summarised) {
    // A summary of many replicas gives this one by its figures: say where the rest is.
    out << "summarised: its root causes, what-ifs and bubble inventory are listed with --detail\n";
    c.systemOut = out.str();
    return c;
  }
  if (!pl.rootCauses.empty()) out << "root causes:\n";
  for (size_t i = 0; i < pl.rootCauses.size() && i < kRootCausesShown; ++i) {
    const RootCause& rc = pl.rootCauses[i];
    out << "  " << i + 1 << ". " << rc.text << "\n     " << rootCauseCost(pl, rc) << "\n";
    for (const std::string& line : {rootCauseOwn(pl, rc), knockOnLine(pl, rc)}) {
      if (!line.empty()) out << "     " << line << "\n";
    }
  }
  out << "what if:" << (pl.whatIfWithheld.empty() ? "" : " none, " + pl.whatIfWithheld) << "\n";
  for (const auto& w : pl.whatIf) {
    const std::string held = activationCell(w);
    out << "  " << w.scenario << ": "
        << (w.available ? formatMs(w.stepTime) + " ms, " + formatRatio(w.speedup) : "n/a")
        << (held.empty() ? "" : ", activations " + held)
        << (w.note.empty() ? "" : " (" + w.note + ")") << "\n";
  }
  c.systemOut = out.str();
  return c;
}

JunitCase stageCase(const PipelineResult& pl, const StageResult& st) {
  JunitCase c;
  c.classname = "bubblescope.pipeline" + std::to_string(pl.dpRank);
  c.name = "stage " + std::to_string(st.stage);
  // The stage's idle per step, so CI trend charts plot where the bubbles grow.
  const auto steps = static_cast<TimeNs>(std::max<size_t>(1, st.perStep.size()));
  c.seconds = seconds(st.total.idle / steps);
  auto& p = c.properties;
  p.emplace_back("rank", std::to_string(st.rank));
  std::string ranks;
  for (int r : st.ranks) ranks += (ranks.empty() ? "" : ",") + std::to_string(r);
  p.emplace_back("ranks", ranks);
  p.emplace_back("slowdown_s", number(st.slowdown, 4));
  splitProperties(st.total, p);
  for (int k = 0; k < 4; ++k) {
    if (st.meanCost[k] <= 0) continue;
    p.emplace_back(std::string("mean_") + engine::kindName(static_cast<OpKind>(k)) + "_ms",
                   ms(st.meanCost[k]));
  }
  std::ostringstream out;
  out << "stage " << st.stage << " (rank " << st.rank << "), S_s = " << formatRatio(st.slowdown)
      << "\n"
      << splitLine(st.total) << "\n";
  c.systemOut = out.str();
  return c;
}

}  // namespace

void writeJunitReport(const AnalysisResult& r, std::ostream& out) {
  JunitSuite suite;
  suite.name = "bubblescope";
  auto& p = suite.properties;
  p.emplace_back("schema_version", std::to_string(AnalysisResult::kSchemaVersion));
  p.emplace_back("run", r.runDir);
  p.emplace_back("command", r.command);
  p.emplace_back("ranks", std::to_string(r.ranks));
  p.emplace_back("pp", std::to_string(r.pp));
  p.emplace_back("dp", std::to_string(r.dp));
  p.emplace_back("tp", std::to_string(r.tp));
  p.emplace_back("topology_source", r.topologySource);
  p.emplace_back("rule_set", r.ruleSet);
  p.emplace_back("ops_inferred", r.opsInferred ? "true" : "false");
  p.emplace_back("ops_from_p2p", r.inference.fromP2p ? "true" : "false");
  if (r.inference.fromP2p) p.emplace_back("ops_confidence", r.inference.confidence);
  p.emplace_back("dropped_events", std::to_string(r.droppedEvents));
  if (r.warmupStepLeftOut) {
    p.emplace_back("warmup_step_left_out", std::to_string(*r.warmupStepLeftOut));
  }
  p.emplace_back("clock_max_correction_ms", ms(r.clock.maxCorrection));
  // A model that does not reproduce the job fails its case, so CI shows it.
  if (r.job.present && r.job.steps > 0) suite.cases.push_back(jobCase(r.job));
  for (const auto& pl : r.pipelines) {
    suite.cases.push_back(pipelineCase(pl));
    // A summarised pipeline has no inventory: its stages' cases carry their figures only.
    const std::vector<StageInventory> inventory =
        pl.summarised ? std::vector<StageInventory>{} : bubbleInventory(pl);
    for (size_t s = 0; s < pl.stages.size(); ++s) {
      suite.cases.push_back(stageCase(pl, pl.stages[s]));
      if (s < inventory.size()) inventoryProperties(inventory[s], suite.cases.back().properties);
    }
  }
  for (const auto& w : r.warnings) suite.systemErr += "warning: " + w + "\n";
  writeJunit(suite, out);
}

}  // namespace bubblescope::analysis
