#include "analyzer/watch/prometheus_text.h"

#include <cstdio>

namespace bubblescope::analysis::watch {
namespace {

std::string number(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

double seconds(TimeNs t) {
  return static_cast<double>(t) / 1e9;
}

class Exposition {
 public:
  explicit Exposition(const std::string& runId)
      : runLabel_("run_id=\"" + prometheusLabelValue(runId) + "\"") {}

  // A family's HELP and TYPE, once, before its samples.
  void family(const char* name, const char* type, const char* help) {
    text_ += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
  }
  void sample(const char* name, const std::string& labels, double value) {
    text_ += std::string(name) + "{" + runLabel_ + (labels.empty() ? "" : "," + labels) + "} " +
             number(value) + "\n";
  }
  std::string take() { return std::move(text_); }

 private:
  std::string runLabel_;
  std::string text_;
};

std::string label(const char* name, const std::string& value) {
  return std::string(name) + "=\"" + prometheusLabelValue(value) + "\"";
}

std::string stageLabels(const StageReading& s) {
  return label("replica", std::to_string(s.replica)) + "," +
         label("stage", std::to_string(s.stage));
}

}  // namespace

std::string prometheusLabelValue(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string prometheusText(const StepReading& r, const WatchCounters& counters) {
  Exposition e(counters.runId);
  e.family("bubblescope_step", "gauge",
           "Number of the newest step watched, as the trace numbers it.");
  e.sample("bubblescope_step", "", static_cast<double>(r.step));
  e.family("bubblescope_step_time_seconds", "gauge",
           "The newest step's time: its earliest op start to its latest op end.");
  e.sample("bubblescope_step_time_seconds", "", seconds(r.stepTime));
  e.family("bubblescope_bubble_ratio", "gauge",
           "Idle over stage time in the newest step (every stage's idle / every stage's span).");
  e.sample("bubblescope_bubble_ratio", "", r.bubble);
  e.family("bubblescope_slowdown_ratio", "gauge",
           "S: the newest step's time over the ideal schedule's (balanced stages, no stalls).");
  e.sample("bubblescope_slowdown_ratio", "", r.slowdown);
  e.family("bubblescope_idle_seconds", "gauge",
           "Idle of a stage in the newest step, by class (warmup, drain, schedule, imbalance, "
           "jitter, stall_comm, stall_host, dp_sync, stall_other).");
  for (const StageReading& s : r.stages) {
    for (int k = 0; k < kIdleClasses; ++k) {
      e.sample("bubblescope_idle_seconds",
               stageLabels(s) + "," + label("class", idleClassKey(idleClassAt(k))),
               seconds(s.split.idleByClass[static_cast<size_t>(k)]));
    }
  }
  e.family("bubblescope_stage_time_seconds", "gauge",
           "A stage's step in the newest step, by part (compute, exposed_comm, other_busy, idle).");
  for (const StageReading& s : r.stages) {
    const std::string at = stageLabels(s) + ",";
    e.sample("bubblescope_stage_time_seconds", at + label("part", "compute"),
             seconds(s.split.compute));
    e.sample("bubblescope_stage_time_seconds", at + label("part", "exposed_comm"),
             seconds(s.split.exposedComm));
    e.sample("bubblescope_stage_time_seconds", at + label("part", "other_busy"),
             seconds(s.split.otherBusy));
    e.sample("bubblescope_stage_time_seconds", at + label("part", "idle"), seconds(s.split.idle));
  }
  e.family("bubblescope_stage_slowdown_ratio", "gauge",
           "S_s: the step time with only this stage at its measured op costs, over the ideal.");
  for (const StageReading& s : r.stages) {
    e.sample("bubblescope_stage_slowdown_ratio", stageLabels(s), s.slowdown);
  }
  e.family("bubblescope_culprit_seconds", "gauge",
           "What the newest step's culprit cost it (how much shorter the step would be without "
           "it), labelled by what it is; no sample when the step has none.");
  if (r.culprit) {
    const StepCulprit& c = *r.culprit;
    auto part = [](int v) { return v >= 0 ? std::to_string(v) : std::string(); };
    e.sample("bubblescope_culprit_seconds",
             label("class", idleClassKey(c.cause)) + "," + label("replica", part(c.replica)) + "," +
                 label("stage", part(c.stage)) + "," + label("to_stage", part(c.toStage)) + "," +
                 label("op", c.op ? engine::kindName(*c.op) : ""),
             seconds(c.cost));
  }
  e.family("bubblescope_steps_watched_total", "counter", "Steps read since the watch began.");
  e.sample("bubblescope_steps_watched_total", "", static_cast<double>(counters.stepsWatched));
  e.family("bubblescope_culprits_started_total", "counter",
           "Culprits that persisted and were reported as started since the watch began.");
  e.sample("bubblescope_culprits_started_total", "", static_cast<double>(counters.culpritsStarted));
  return e.take();
}

}  // namespace bubblescope::analysis::watch
