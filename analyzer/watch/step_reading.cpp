#include "analyzer/watch/step_reading.h"

#include <algorithm>
#include <stdexcept>

#include "analyzer/result/printed.h"
#include "analyzer/whatif/pipeline_culprit.h"

namespace bubblescope::analysis::watch {
namespace {

std::string ms(TimeNs t) {
  return printed("%.1f ms", static_cast<double>(t) / 1e6);
}

// The op kind on which `stage` loses the most time against the same kind's mean over the stages
// that run it (its mean cost above theirs, in ns): what "stage 2 is slow" means in ops. A stage
// slow at every kind alike names the longest kind, every step the same.
void slowestKind(const PipelineResult& pl, int stage, StepCulprit& c) {
  const StageResult* mine = nullptr;
  for (const StageResult& s : pl.stages) {
    if (s.stage == stage) mine = &s;
  }
  if (mine == nullptr) return;
  double most = 0;
  for (size_t k = 0; k < mine->meanCost.size(); ++k) {
    if (mine->meanCost[k] <= 0) continue;
    TimeNs sum = 0;
    int n = 0;
    for (const StageResult& s : pl.stages) {
      if (s.meanCost[k] <= 0) continue;
      sum += s.meanCost[k];
      ++n;
    }
    const double mean = static_cast<double>(sum) / n;
    const double excess = static_cast<double>(mine->meanCost[k]) - mean;
    if (!c.op || excess > most) {
      c.op = static_cast<OpKind>(k);
      c.ratio = static_cast<double>(mine->meanCost[k]) / mean;
      most = excess;
    }
  }
}

std::optional<StepCulprit> culpritOf(const PipelineResult& pl, int replica, TimeNs stepTime) {
  const PipelineCulprit found = pipelineCulprit(pl);
  if (found.none || static_cast<double>(found.gain) < kNamedShare * static_cast<double>(stepTime)) {
    return std::nullopt;
  }
  StepCulprit c;
  c.cause = found.cause;
  c.replica = replica;
  c.stage = found.stage;
  c.toStage = found.toStage;
  c.cost = found.gain;
  if (c.cause == IdleClass::Imbalance && c.stage >= 0) slowestKind(pl, c.stage, c);
  return c;
}

}  // namespace

std::string StepCulprit::key() const {
  std::string k = idleClassKey(cause);
  if (replica >= 0) k += " replica " + std::to_string(replica);
  if (stage >= 0) k += " stage " + std::to_string(stage);
  return k;
}

std::string StepCulprit::place() const {
  std::string t = where();
  if (toStage >= 0) t += "->" + std::to_string(toStage);
  return t;
}

std::string StepCulprit::where() const {
  // "imbalance:" and "jitter:" name the class before the place; a stall's name has its colon
  // ("stall: comm") and reads on into the place.
  std::string t = idleClassName(cause);
  if (!isStall(cause)) t += ":";
  if (replica >= 0) t += " replica " + std::to_string(replica);
  if (stage >= 0) {
    t += (cause == IdleClass::Imbalance || cause == IdleClass::Jitter) ? " stage " : " on stage ";
    t += std::to_string(stage);
  }
  return t;
}

std::string StepCulprit::text() const {
  std::string t = place();
  if (op) t += std::string(" ") + engine::kindName(*op);
  t += " +" + ms(cost);
  if (op && ratio > 0) t += " (" + printed("%.2fx", ratio) + ")";
  return t;
}

StepReading readStep(const AnalysisResult& oneStep) {
  StepReading r;
  const PipelineResult* first = nullptr;
  for (const PipelineResult& pl : oneStep.pipelines) {
    if (!pl.steps.empty()) first = &pl;
    if (first != nullptr) break;
  }
  if (first == nullptr) throw std::invalid_argument("the analysis holds no step");
  r.step = first->steps.front().number;
  const bool replicas = oneStep.pipelines.size() > 1;
  TimeNs idle = 0, span = 0;
  for (const PipelineResult& pl : oneStep.pipelines) {
    r.stepTime = std::max(r.stepTime, pl.stepTimeMeasured);
    idle += pl.total.idle;
    span += pl.total.span;
    for (size_t k = 0; k < r.idle.size(); ++k) r.idle[k] += pl.total.idleByClass[k];
    for (const StageResult& s : pl.stages) {
      r.stages.push_back({pl.dpRank, s.stage, s.total, s.slowdown});
    }
  }
  r.bubble = span > 0 ? static_cast<double>(idle) / static_cast<double>(span) : 0;
  if (replicas && oneStep.job.stepTimeMeasured > 0) {
    // The job waits for its slowest replica at the DP sync: its step and S are the job's.
    r.stepTime = oneStep.job.stepTimeMeasured;
    r.slowdown = oneStep.job.slowdown;
    for (const PipelineResult& pl : oneStep.pipelines) {
      if (pl.dpRank == oneStep.job.culpritDp) r.culprit = culpritOf(pl, pl.dpRank, r.stepTime);
    }
  } else {
    r.slowdown = first->slowdown;
    r.culprit = culpritOf(*first, replicas ? first->dpRank : -1, r.stepTime);
  }
  return r;
}

std::string stepLine(const StepReading& reading) {
  std::string line = "step " + std::to_string(reading.step) + "  " + ms(reading.stepTime) +
                     "  bubble " + printed("%.1f%%", 100 * reading.bubble) + "  S " +
                     printed("%.2fx", reading.slowdown) + "  ";
  line += reading.culprit ? reading.culprit->text() : "no culprit";
  return line;
}

}  // namespace bubblescope::analysis::watch
