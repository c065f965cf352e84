// The Perfetto export: a Chrome-trace JSON with one process per stage, ops and idle gaps as
// slices, transfers as flow arrows, exact microsecond times; and `bubblescope export perfetto`.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "analyzer/analyze.h"
#include "analyzer/export/perfetto_export.h"
#include "tests/analyzer/export/slices_nest.h"
#include "tests/analyzer/synthetic_run.h"
#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"
#include "traces/sqlite/trace_writer.h"

namespace bubblescope::analysis {
namespace {

using nlohmann::json;

struct Exported {
  std::string text;
  json doc;
  AnalysisResult result;
};

Exported exportOneF1B() {
  testing::SyntheticJob job;
  job.schedule = engine::Schedule::oneF1B(4, 4);
  job.steps = 2;
  job.cost = [](int stage, int, const engine::Op& op) -> TimeNs {
    const TimeNs base = op.kind == engine::OpKind::BW ? 4'000'000 : 2'000'000;
    return stage == 2 ? base * 3 / 2 + 1 : base;  // a slow stage, and odd nanoseconds
  };
  const traces::Run run = testing::synthesize(job);
  Exported e;
  e.result = analyzeRun(run);
  std::ostringstream out;
  writePerfettoTrace(run, e.result, out);
  e.text = out.str();
  e.doc = json::parse(e.text);
  return e;
}

TEST(PerfettoExport, MicrosecondsKeepEveryNanosecond) {
  EXPECT_EQ(microsText(1234567), "1234.567");
  EXPECT_EQ(microsText(5), "0.005");
  EXPECT_EQ(microsText(0), "0.000");
  EXPECT_EQ(microsText(-1500), "-1.500");
  EXPECT_EQ(jsonString("a \"b\"\n"), "\"a \\\"b\\\"\\n\"");
}

TEST(PerfettoExport, StagesAreProcessesWithOpsGapsAndTransferArrows) {
  const Exported e = exportOneF1B();
  const PipelineResult& pl = e.result.pipelines.at(0);
  std::map<int, std::string> processes;
  std::map<std::pair<int, int>, std::string> threads;
  size_t ops = 0, gaps = 0, flowStarts = 0, flowEnds = 0;
  std::map<std::string, size_t> opNames;
  for (const json& ev : e.doc["traceEvents"]) {
    const std::string ph = ev["ph"];
    if (ph == "M" && ev["name"] == "process_name") processes[ev["pid"]] = ev["args"]["name"];
    if (ph == "M" && ev["name"] == "thread_name")
      threads[{ev["pid"], ev["tid"]}] = ev["args"]["name"];
    if (ph == "X" && threads.count({ev["pid"], ev["tid"]})) {
      const std::string lane = threads[{ev["pid"], ev["tid"]}];
      if (lane.starts_with("ops")) {
        ++ops;
        ++opNames[ev["name"]];
      }
      if (lane.starts_with("idle")) {
        ++gaps;
        EXPECT_TRUE(ev["args"].contains("idle_us"));
      }
    }
    flowStarts += ph == "s";
    flowEnds += ph == "f";
  }
  ASSERT_EQ(processes.size(), 4u);
  EXPECT_EQ(processes.begin()->second, "stage 0 (rank 0)");
  EXPECT_EQ(processes.rbegin()->second, "stage 3 (rank 3)");
  EXPECT_EQ(ops, pl.ops.size());
  EXPECT_EQ(opNames["F mb=0"], 4u * 2);  // every stage, both steps
  EXPECT_EQ(gaps, pl.gaps.size());
  EXPECT_EQ(flowStarts, pl.transfers.size());
  EXPECT_EQ(flowEnds, pl.transfers.size());
  EXPECT_GT(pl.transfers.size(), 0u);
}

TEST(PerfettoExport, GapsAreNamedByTheirClassWithTheBlameInArgs) {
  const Exported e = exportOneF1B();
  std::map<std::string, size_t> names;
  bool blamed = false;
  for (const json& ev : e.doc["traceEvents"]) {
    if (ev["ph"] != "X" || ev["cat"] != "idle") continue;
    ++names[ev["name"]];
    blamed = blamed || (ev["args"].contains("blame") && ev["args"]["blame"].get<std::string>().find(
                                                            "stage 2") != std::string::npos);
  }
  EXPECT_GT(names["warmup"], 0u);
  EXPECT_GT(names["drain"], 0u);
  EXPECT_TRUE(blamed) << "the slow stage 2 is named in some gap's blame";
}

// The Perfetto UI's color for a slice (ui/src/components/colorizer.ts, getColorForSlice, and
// ui/src/base/hash.ts): the name less its digits and a space before them, hashed (FNV-1a with
// JavaScript's double multiply) to an HSLuv hue and lightness. It ignores "cname".
std::string perfettoColorSeed(const std::string& name) {
  return std::regex_replace(name, std::regex("( )?[0-9]+"), "");
}
int perfettoHash(const std::string& s, int max) {
  int32_t h = 0x811c9dc5 & 0xfffffff;
  for (unsigned char c : s) {
    h ^= c;
    const double product = static_cast<double>(h) * 16777619.0;
    h = static_cast<int32_t>(static_cast<uint32_t>(static_cast<int64_t>(product)));
  }
  return static_cast<int>(std::abs(static_cast<int64_t>(h)) % max);
}
std::pair<int, int> perfettoHueAndLightness(const std::string& name) {
  const std::string seed = perfettoColorSeed(name);
  return {perfettoHash(seed, 360), perfettoHash(seed + "x", 40) + 40};
}

TEST(PerfettoExport, EveryIdleSliceIsNamedByItsClass) {
  const Exported e = exportOneF1B();
  size_t idle = 0;
  for (const json& ev : e.doc["traceEvents"]) {
    if (ev["ph"] != "X" || ev["cat"] != "idle") continue;
    ++idle;
    const std::string key = ev["args"]["class"];
    EXPECT_EQ(ev["name"], key);
    bool known = false;
    for (const IdleClassInfo& c : kIdleClassTable) {
      if (key != c.key) continue;
      known = true;
      EXPECT_EQ(ev["args"]["class_name"], c.name);
    }
    EXPECT_TRUE(known) << key;
  }
  EXPECT_EQ(idle, e.result.pipelines.at(0).gaps.size());
}

// Perfetto colors by name alone, so the names must hash apart: a hue 20 degrees off or a
// lightness 12 off. The classes' display names do not ("warm-up bubble" and "drain bubble" get
// hues 8 apart at one lightness); their keys do.
TEST(PerfettoExport, PerfettoColorsEachIdleClassApart) {
  EXPECT_EQ(perfettoColorSeed("F mb=12 ch=1"), "F mb= ch=");
  EXPECT_EQ(perfettoColorSeed("step 3"), "step");
  for (int a = 0; a < kIdleClasses; ++a) {
    for (int b = a + 1; b < kIdleClasses; ++b) {
      const auto [hueA, lightA] = perfettoHueAndLightness(kIdleClassTable[a].key);
      const auto [hueB, lightB] = perfettoHueAndLightness(kIdleClassTable[b].key);
      const int hue = std::min(std::abs(hueA - hueB), 360 - std::abs(hueA - hueB));
      EXPECT_TRUE(hue >= 20 || std::abs(lightA - lightB) >= 12)
          << kIdleClassTable[a].key << " " << hueA << "/" << lightA << " and "
          << kIdleClassTable[b].key << " " << hueB << "/" << lightB;
    }
  }
}

// In a job with chunks every op carries "ch=", so the ops of one kind reduce to one name (one
// color) once Perfetto drops the digits, and the kinds to different ones.
TEST(PerfettoExport, OpsOfOneKindShareOneColorWithChunks) {
  testing::SyntheticJob job;
  job.schedule = engine::Schedule::interleaved1F1B(4, 8, 2);
  job.steps = 2;
  const traces::Run run = testing::synthesize(job);
  const AnalysisResult result = analyzeRun(run);
  std::ostringstream out;
  writePerfettoTrace(run, result, out);
  std::map<std::string, std::set<std::string>> seedsOfKind;
  std::set<std::string> chunks;
  const json doc = json::parse(out.str());
  for (const json& ev : doc["traceEvents"]) {
    if (ev["ph"] != "X" || !ev["args"].contains("kind")) continue;
    seedsOfKind[ev["args"]["kind"]].insert(perfettoColorSeed(ev["name"]));
    chunks.insert(std::to_string(ev["args"]["chunk"].get<int>()));
  }
  EXPECT_EQ(chunks, (std::set<std::string>{"0", "1"}));
  ASSERT_EQ(seedsOfKind.size(), 2u);  // F and BW
  std::set<std::string> seeds;
  for (const auto& [kind, set] : seedsOfKind) {
    ASSERT_EQ(set.size(), 1u) << kind;
    seeds.insert(*set.begin());
  }
  EXPECT_EQ(seeds, (std::set<std::string>{"F mb= ch=", "BW mb= ch="}));
}

TEST(PerfettoExport, EachIdleClassHasItsOwnColorAndArrowsJoinSendToReceive) {
  const Exported e = exportOneF1B();
  std::map<std::string, std::set<std::string>> colorOfClass;
  std::map<int, json> flowStart, flowEnd;
  for (const json& ev : e.doc["traceEvents"]) {
    if (ev["ph"] == "X" && ev["cat"] == "idle") colorOfClass[ev["name"]].insert(ev["cname"]);
    if (ev["ph"] == "s") flowStart[ev["id"]] = ev;
    if (ev["ph"] == "f") flowEnd[ev["id"]] = ev;
  }
  ASSERT_GE(colorOfClass.size(), 2u);
  std::set<std::string> colors;
  for (const auto& [name, set] : colorOfClass) {
    EXPECT_EQ(set.size(), 1u) << name;
    colors.insert(*set.begin());
  }
  EXPECT_EQ(colors.size(), colorOfClass.size()) << "two classes share a color";
  // Every arrow starts on one stage's process and ends on a neighbour's.
  ASSERT_EQ(flowStart.size(), e.result.pipelines.at(0).transfers.size());
  for (const auto& [id, s] : flowStart) {
    ASSERT_TRUE(flowEnd.count(id)) << id;
    const int from = s["pid"], to = flowEnd[id]["pid"];
    EXPECT_EQ(std::abs(from - to), 1) << id;
  }
}

TEST(PerfettoExport, TimesAreExactAndSlicesOfOneThreadNest) {
  const Exported e = exportOneF1B();
  // Every ts and dur has exactly three decimals.
  const std::regex time(R"re("(ts|dur)":(-?\d+)(\.\d+)?[,}])re");
  size_t n = 0;
  for (auto it = std::sregex_iterator(e.text.begin(), e.text.end(), time);
       it != std::sregex_iterator(); ++it) {
    ASSERT_EQ((*it)[3].str().size(), 4u) << (*it)[0];
    ++n;
  }
  EXPECT_GT(n, 100u);
  testing::expectSlicesOfOneThreadNest(e.doc);
  EXPECT_EQ(e.doc["otherData"]["origin_ns"].get<std::string>().size(), 19u);
}

TEST(PerfettoExport, TheCommandWritesAFileThePerfettoUiOpens) {
  testing::TempDir dir;
  testing::SyntheticJob job;
  job.schedule = engine::Schedule::oneF1B(2, 4);
  job.steps = 2;
  const traces::Run run = testing::synthesize(job);
  std::filesystem::create_directory(dir / "run");
  for (const auto& t : run.ranks) {
    traces::writeRankTrace(t, dir / "run" / ("rank-" + std::to_string(t.meta.rank) + ".sqlite"));
  }
  const auto r = testing::runBubblescope(
      {"export", "perfetto", (dir / "run").string(), "-o", (dir / "trace.json").string()});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.err.find("ui.perfetto.dev"), std::string::npos) << r.err;
  const json doc = json::parse(testing::readFile(dir / "trace.json"));
  EXPECT_EQ(doc["displayTimeUnit"], "ns");
  EXPECT_GT(doc["traceEvents"].size(), 20u);
}

}  // namespace
}  // namespace bubblescope::analysis
