#include "analyzer/watch/prometheus_metrics.h"

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <sstream>

namespace bubblescope::analysis::watch {
namespace {

double seconds(TimeNs t) {
  return static_cast<double>(t) / 1e9;
}

prometheus::Labels stageLabels(const StageReading& s) {
  return {{"replica", std::to_string(s.replica)}, {"stage", std::to_string(s.stage)}};
}

prometheus::Labels with(prometheus::Labels labels, const std::string& name,
                        const std::string& value) {
  labels.emplace(name, value);
  return labels;
}

}  // namespace

WatchMetrics::WatchMetrics(const std::string& runId)
    : registry_(std::make_shared<prometheus::Registry>()) {
  const prometheus::Labels run = {{"run_id", runId}};
  auto gauge = [&](const char* name, const char* help) {
    return &prometheus::BuildGauge().Name(name).Help(help).Labels(run).Register(*registry_);
  };
  auto counter = [&](const char* name, const char* help) {
    return &prometheus::BuildCounter().Name(name).Help(help).Labels(run).Register(*registry_);
  };
  step_ = gauge("bubblescope_step", "Number of the newest step watched, as the trace numbers it.");
  stepTime_ = gauge("bubblescope_step_time_seconds",
                    "The newest step's time: its earliest op start to its latest op end.");
  bubble_ = gauge("bubblescope_bubble_ratio",
                  "Idle over stage time in the newest step (every stage's idle / every stage's "
                  "span).");
  slowdown_ = gauge("bubblescope_slowdown_ratio",
                    "S: the newest step's time over the ideal schedule's (balanced stages, no "
                    "stalls).");
  idle_ = gauge("bubblescope_idle_seconds",
                "Idle of a stage in the newest step, by class (warmup, drain, schedule, "
                "imbalance, jitter, stall_comm, stall_host, dp_sync, stall_other).");
  stageTime_ = gauge("bubblescope_stage_time_seconds",
                     "A stage's step in the newest step, by part (compute, exposed_comm, "
                     "other_busy, idle).");
  stageSlowdown_ = gauge("bubblescope_stage_slowdown_ratio",
                         "S_s: the step time with only this stage at its measured op costs, over "
                         "the ideal.");
  culprit_ = gauge("bubblescope_culprit_seconds",
                   "What the newest step's culprit cost it (how much shorter the step would be "
                   "without it), labelled by what it is; no sample when the step has none.");
  stepsWatched_ = counter("bubblescope_steps_watched_total", "Steps read since the watch began.");
  culpritsStarted_ = counter("bubblescope_culprits_started_total",
                             "Culprits that persisted and were reported as started since the "
                             "watch began.");
  // The counters exist from the start, at zero, as the format expects of a counter.
  stepsWatched_->Add({});
  culpritsStarted_->Add({});
}

WatchMetrics::~WatchMetrics() = default;

void WatchMetrics::update(const StepReading& r, int64_t stepsWatched, int64_t culpritsStarted) {
  step_->Add({}).Set(static_cast<double>(r.step));
  stepTime_->Add({}).Set(seconds(r.stepTime));
  bubble_->Add({}).Set(r.bubble);
  slowdown_->Add({}).Set(r.slowdown);
  for (const StageReading& s : r.stages) {
    const prometheus::Labels at = stageLabels(s);
    // Every class, zeros too: a dashboard stacks them without holes.
    for (int k = 0; k < kIdleClasses; ++k) {
      idle_->Add(with(at, "class", idleClassKey(idleClassAt(k))))
          .Set(seconds(s.split.idleByClass[static_cast<size_t>(k)]));
    }
    stageTime_->Add(with(at, "part", "compute")).Set(seconds(s.split.compute));
    stageTime_->Add(with(at, "part", "exposed_comm")).Set(seconds(s.split.exposedComm));
    stageTime_->Add(with(at, "part", "other_busy")).Set(seconds(s.split.otherBusy));
    stageTime_->Add(with(at, "part", "idle")).Set(seconds(s.split.idle));
    stageSlowdown_->Add(at).Set(s.slowdown);
  }
  // One culprit series at most: the newest step's, or none.
  if (culpritNow_ != nullptr) culprit_->Remove(culpritNow_);
  culpritNow_ = nullptr;
  if (r.culprit) {
    const StepCulprit& c = *r.culprit;
    auto part = [](int v) { return v >= 0 ? std::to_string(v) : std::string(); };
    culpritNow_ = &culprit_->Add({{"class", idleClassKey(c.cause)},
                                  {"replica", part(c.replica)},
                                  {"stage", part(c.stage)},
                                  {"to_stage", part(c.toStage)},
                                  {"op", c.op ? engine::kindName(*c.op) : ""}});
    culpritNow_->Set(seconds(c.cost));
  }
  stepsWatched_->Add({}).Increment(static_cast<double>(stepsWatched - stepsCounted_));
  culpritsStarted_->Add({}).Increment(static_cast<double>(culpritsStarted - startsCounted_));
  stepsCounted_ = stepsWatched;
  startsCounted_ = culpritsStarted;
}

std::string WatchMetrics::text() const {
  std::ostringstream out;
  prometheus::TextSerializer().Serialize(out, registry_->Collect());
  return out.str();
}

}  // namespace bubblescope::analysis::watch
