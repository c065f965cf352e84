// The Prometheus text a watch writes parses by the exposition format's grammar (0.0.4), holds
// each family once with its HELP and TYPE before its samples, and its values are the reading's.
#include "analyzer/watch/prometheus_metrics.h"

#include <gtest/gtest.h>

#include <fstream>

#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

namespace bubblescope::analysis::watch {
namespace {

constexpr TimeNs kMs = 1'000'000;

StepReading aReading(bool withCulprit) {
  StepReading r;
  r.step = 41;
  r.stepTime = 250 * kMs;
  r.bubble = 0.25;
  r.slowdown = 1.2;
  for (int s = 0; s < 2; ++s) {
    StageReading st;
    st.stage = s;
    st.split.span = 250 * kMs;
    st.split.compute = 180 * kMs;
    st.split.idle = 70 * kMs;
    st.split.idleByClass[static_cast<int>(IdleClass::Warmup)] = 40 * kMs;
    st.split.idleByClass[static_cast<int>(IdleClass::Imbalance)] = 30 * kMs;
    st.slowdown = s == 1 ? 1.2 : 1.0;
    r.stages.push_back(st);
  }
  if (withCulprit) {
    StepCulprit c;
    c.stage = 1;
    c.op = engine::OpKind::F;
    c.ratio = 1.3;
    c.cost = 30 * kMs;
    r.culprit = c;
  }
  return r;
}

// "{b="2",a="1"}" as "{a="1",b="2"}": a series is the same whatever order its labels come in.
std::string sortedLabels(const std::string& braces) {
  if (braces.empty()) return braces;
  static const std::regex pair(R"re(([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)")re");
  std::map<std::string, std::string> labels;
  for (std::sregex_iterator it(braces.begin(), braces.end(), pair), end; it != end; ++it) {
    labels[(*it)[1]] = (*it)[2];
  }
  std::string out = "{";
  for (const auto& [name, value] : labels) {
    out += (out.size() > 1 ? "," : "") + name + "=\"" + value + "\"";
  }
  return out + "}";
}

struct Parsed {
  std::map<std::string, std::string> types;
  std::map<std::string, double> samples;  // "name{labels}" -> value
};

// Checks every line against the format's grammar; fails the test on the first that breaks it.
Parsed parse(const std::string& text) {
  static const std::regex help(R"(^# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) .+$)");
  static const std::regex type(
      R"(^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$)");
  static const std::regex sample(
      R"(^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*"(?:,[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*")*)?\})? (-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?|NaN|[-+]Inf)$)");
  Parsed p;
  std::set<std::string> finished;  // families whose samples ended: none may come back
  std::string current;
  std::istringstream in(text);
  std::string line;
  EXPECT_TRUE(!text.empty() && text.back() == '\n') << "the text ends with a line feed";
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_match(line, m, help)) continue;
    if (std::regex_match(line, m, type)) {
      EXPECT_FALSE(p.types.count(m[1])) << "TYPE twice: " << line;
      p.types[m[1]] = m[2];
      if (!current.empty()) finished.insert(current);
      current = m[1];
      continue;
    }
    if (!std::regex_match(line, m, sample)) {
      ADD_FAILURE() << "not a line of the text format: " << line;
      continue;
    }
    EXPECT_EQ(m[1].str(), current) << "a sample outside its family: " << line;
    EXPECT_FALSE(finished.count(m[1])) << line;
    const std::string key = m[1].str() + sortedLabels(m[2].str());
    EXPECT_FALSE(p.samples.count(key)) << "the same series twice: " << line;
    p.samples[key] = std::stod(m[3]);
  }
  return p;
}

// The text of a watch after `steps` steps, the last with or without a culprit.
std::string textAfter(const std::string& runId, bool culpritLast, int steps) {
  WatchMetrics metrics(runId);
  for (int i = 1; i <= steps; ++i) metrics.update(aReading(i < steps || culpritLast), i, 1);
  return metrics.text();
}

TEST(PrometheusText, ParsesAndSaysTheReadingsFigures) {
  for (bool culprit : {false, true}) {
    SCOPED_TRACE(culprit ? "with a culprit" : "without");
    const std::string text = textAfter("run \"7\"\nx", culprit, 5);
    const Parsed p = parse(text);
    const std::string run = R"(run_id="run \"7\"\nx")";
    EXPECT_EQ(p.types.at("bubblescope_steps_watched_total"), "counter");
    EXPECT_EQ(p.types.at("bubblescope_step_time_seconds"), "gauge");
    EXPECT_DOUBLE_EQ(p.samples.at("bubblescope_step{" + run + "}"), 41);
    EXPECT_DOUBLE_EQ(p.samples.at("bubblescope_step_time_seconds{" + run + "}"), 0.25);
    EXPECT_DOUBLE_EQ(p.samples.at("bubblescope_bubble_ratio{" + run + "}"), 0.25);
    EXPECT_DOUBLE_EQ(p.samples.at("bubblescope_slowdown_ratio{" + run + "}"), 1.2);
    EXPECT_DOUBLE_EQ(p.samples.at(R"(bubblescope_idle_seconds{class="imbalance",replica="0",)" +
                                  run + R"(,stage="1"})"),
                     0.03);
    EXPECT_DOUBLE_EQ(
        p.samples.at(R"(bubblescope_stage_slowdown_ratio{replica="0",)" + run + R"(,stage="1"})"),
        1.2);
    EXPECT_DOUBLE_EQ(p.samples.at("bubblescope_steps_watched_total{" + run + "}"), 5);
    const std::string culpritKey =
        R"(bubblescope_culprit_seconds{class="imbalance",op="F",replica="",)" + run +
        R"(,stage="1",to_stage=""})";
    EXPECT_EQ(p.samples.count(culpritKey), culprit ? 1u : 0u);
    if (culprit) {
      EXPECT_DOUBLE_EQ(p.samples.at(culpritKey), 0.03);
    }
    // Every idle class of every stage is a series: a dashboard stacks them without gaps.
    int idleSeries = 0;
    for (const auto& [key, value] : p.samples)
      idleSeries += key.rfind("bubblescope_idle_seconds{", 0) == 0;
    EXPECT_EQ(idleSeries, 2 * kIdleClasses);
  }
}

// The dashboard in docs/ and the metric table in docs/watch.md name only what the text holds,
// and the table names all of it.
TEST(PrometheusText, TheDashboardAndTheDocsNameTheMetricsTheTextHolds) {
  const Parsed p = parse(textAfter("r", true, 1));
  std::ifstream dashboardFile(std::string(BUBBLESCOPE_SOURCE_DIR) +
                              "/docs/grafana/bubblescope-watch.json");
  ASSERT_TRUE(dashboardFile) << "docs/grafana/bubblescope-watch.json";
  const auto dashboard = nlohmann::json::parse(dashboardFile);
  static const std::regex metric(R"(bubblescope_[a-z_]+)");
  int named = 0;
  for (const auto& panel : dashboard.at("panels")) {
    for (const auto& target : panel.at("targets")) {
      const std::string expr = target.at("expr");
      for (std::sregex_iterator it(expr.begin(), expr.end(), metric), end; it != end; ++it) {
        EXPECT_TRUE(p.types.count(it->str())) << panel.at("title") << ": " << it->str();
        ++named;
      }
    }
  }
  EXPECT_GT(named, 0);
  std::ifstream docFile(std::string(BUBBLESCOPE_SOURCE_DIR) + "/docs/watch.md");
  const std::string doc((std::istreambuf_iterator<char>(docFile)),
                        std::istreambuf_iterator<char>());
  for (const auto& [name, type] : p.types) {
    EXPECT_NE(doc.find("| `" + name + "` | " + type + " |"), std::string::npos) << name;
  }
}

}  // namespace
}  // namespace bubblescope::analysis::watch
