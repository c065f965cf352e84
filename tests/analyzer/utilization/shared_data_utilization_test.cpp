// Every real trace in shared/data gets an answer: `bubblescope analyze FILE --format json` exits
// 0, and its figures add up (per step, per rank, for the job; idle by cause to idle). One trace's
// idle is recomputed here from its raw events, independently of the importer and the analysis.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <vector>

#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"
#include "tests/traces/import/shared_data.h"
#include "traces/import/byte_source.h"

namespace bubblescope::analysis {
namespace {

using nlohmann::json;

const std::vector<std::string> kFiles = {
    "kineto/hta-ddp2-rank0-nccl.json.gz",     "kineto/hta-ws128-sampled-rank0.json.gz",
    "kineto/hta-ws128-sampled-rank1.json.gz", "kineto/hta-ws16-rank0-sendrecv.json.gz",
    "kineto/hta-ns-resolution-rank0.json.gz", "kineto/deepseek-dualpipe-ep64-rank0.json.gz",
    "nsys/nsys-ai-2gpu-mfu-before.sqlite",    "nsys/nsys-ai-2gpu-mfu-after.sqlite",
    "nsys/nsys-ai-h100-2gpu-fsdp.sqlite"};

json analyze(const std::string& file) {
  const auto r = testing::runBubblescope({"analyze", file, "--format", "json"});
  EXPECT_EQ(r.exitCode, 0) << file << "\n" << r.err;
  return json::parse(r.out);
}

int64_t parts(const json& s) {
  return s["compute_ns"].get<int64_t>() + s["exposed_comm_ns"].get<int64_t>() +
         s["comm_wait_ns"].get<int64_t>() + s["other_busy_ns"].get<int64_t>() +
         s["idle_ns"].get<int64_t>();
}

TEST(SharedDataUtilization, EveryRealTraceIsAnalysedAndItsFiguresAddUp) {
  SKIP_WITHOUT_SHARED_DATA();
  for (const std::string& f : kFiles) {
    SCOPED_TRACE(f);
    const json doc = analyze(testing::sharedData(f).string());
    ASSERT_TRUE(doc.contains("utilization"));
    const json& u = doc["utilization"];
    ASSERT_FALSE(u["ranks"].empty());
    int64_t span = 0, idle = 0;
    for (const json& rank : u["ranks"]) {
      const json& t = rank["total"];
      EXPECT_EQ(parts(t), t["span_ns"].get<int64_t>());
      EXPECT_GT(t["compute_ns"].get<int64_t>(), 0);
      int64_t stepSpan = 0;
      for (const json& s : rank["steps"]) {
        EXPECT_EQ(parts(s), s["span_ns"].get<int64_t>());
        EXPECT_EQ(s["end_ns"].get<int64_t>() - s["start_ns"].get<int64_t>(),
                  s["span_ns"].get<int64_t>());
        stepSpan += s["span_ns"].get<int64_t>();
      }
      EXPECT_EQ(stepSpan, t["span_ns"].get<int64_t>());
      span += t["span_ns"].get<int64_t>();
      idle += t["idle_ns"].get<int64_t>();
    }
    EXPECT_EQ(u["total"]["span_ns"].get<int64_t>(), span);
    EXPECT_EQ(u["total"]["idle_ns"].get<int64_t>(), idle);
    int64_t byCause = 0;
    for (const json& c : u["idle_by_cause"]) byCause += c["idle_ns"].get<int64_t>();
    EXPECT_EQ(byCause, idle);
    EXPECT_GE(u["slowest"]["step_time_ns"].get<int64_t>(), u["median_step_time_ns"].get<int64_t>());
  }
}

// The per-rank inventory of idle intervals: one row per rank, its bubbles' idle the rank's idle,
// the histogram its bubbles; none of these traces records device memory, so free memory is
// "not recorded" (the Kineto ones say their devices' capacity, not what the job held).
TEST(SharedDataUtilization, EveryRankHasAnInventoryAndNoFreeMemory) {
  SKIP_WITHOUT_SHARED_DATA();
  for (const std::string& f : kFiles) {
    SCOPED_TRACE(f);
    const json u = analyze(testing::sharedData(f).string())["utilization"];
    ASSERT_EQ(u["bubble_inventory"].size(), u["ranks"].size());
    for (size_t r = 0; r < u["ranks"].size(); ++r) {
      const json& inv = u["bubble_inventory"][r];
      EXPECT_EQ(inv["rank"], u["ranks"][r]["rank"]);
      EXPECT_EQ(inv["idle_ns"], u["ranks"][r]["total"]["idle_ns"]);
      int bubbles = 0;
      for (const json& b : inv["histogram"]) bubbles += b["count"].get<int>();
      EXPECT_EQ(bubbles, inv["bubbles"].get<int>());
      EXPECT_GT(bubbles, 0);
      EXPECT_EQ(inv["free_memory"]["basis"], "not recorded");
      EXPECT_TRUE(inv["free_memory"]["min_bytes"].is_null());
    }
  }
}

// The two sampled ranks of HTA's 128-rank job together: their collectives (no group size on the
// calls: the job's world) are matched between the two and their waits said to be from 2 of 128
// members, in the JSON and the text, with one warning.
TEST(SharedDataUtilization, TwoSampledRanksOfA128RankJobSayTheirWaitsAreFrom2Of128Members) {
  SKIP_WITHOUT_SHARED_DATA();
  const std::string rank0 = testing::sharedData("kineto/hta-ws128-sampled-rank0.json.gz").string();
  const std::string rank1 = testing::sharedData("kineto/hta-ws128-sampled-rank1.json.gz").string();
  const auto r = testing::runBubblescope({"analyze", rank0, rank1, "--format", "json"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const json doc = json::parse(r.out);
  const json& total = doc["utilization"]["total"];
  EXPECT_EQ(total["comm_wait_ns"].get<int64_t>(), 140'164'000);
  EXPECT_EQ(total["comm_wait_members"],
            json({{"traced", 2}, {"of", 128}, {"text", "2 of 128 members traced"}}));
  for (const json& rank : doc["utilization"]["ranks"]) {
    EXPECT_EQ(rank["total"]["comm_wait_members"]["text"], "2 of 128 members traced");
  }
  int partial = 0;
  for (const json& w : doc["warnings"]) {
    const std::string s = w.get<std::string>();
    if (s.find("2 of 128 members traced") == std::string::npos) continue;
    ++partial;
    EXPECT_EQ(s.rfind("8 NCCL collective(s) ran on communicators with members the run does not "
                      "hold",
                      0),
              0u)
        << s;
  }
  EXPECT_EQ(partial, 1) << doc["warnings"].dump(2);

  const auto text = testing::runBubblescope({"analyze", rank0, rank1});
  ASSERT_EQ(text.exitCode, 0) << text.err;
  EXPECT_NE(text.out.find("all               2454.0     482.3     496.4    140.2*"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("(2 of 128 members traced): a lower bound, not the job's wait"),
            std::string::npos)
      << text.out;
}

// The raw Kineto events, read with nothing of the importer but its decompression.
json rawKineto(const std::filesystem::path& file) {
  traces::import::ByteSource src(file);
  std::string text;
  char buf[1 << 16];
  for (size_t n; (n = src.read(buf, sizeof buf)) > 0;) text.append(buf, n);
  return json::parse(text);
}

TEST(SharedDataUtilization, DdpIdleMatchesARecomputationFromRawEvents) {
  SKIP_WITHOUT_SHARED_DATA();
  const auto file = testing::sharedData("kineto/hta-ddp2-rank0-nccl.json.gz");
  const json doc = analyze(file.string());
  const json& rank = doc["utilization"]["ranks"][0];

  // Independently: GPU work (kernels, copies, sets) launched inside a ProfilerStep# range;
  // its window from the first start to the last end; busy the union of all GPU work there.
  const json raw = rawKineto(file);
  std::vector<std::pair<double, double>> steps;  // µs
  std::map<int64_t, double> launchAt;            // correlation -> launch ts
  struct Gpu {
    double start, end;
    int64_t corr;
  };
  std::vector<Gpu> gpu;
  for (const json& e : raw["traceEvents"]) {
    if (!e.contains("cat") || !e.contains("ts") || !e.contains("dur")) continue;
    const std::string cat = e["cat"];
    const double ts = e["ts"].get<double>(), dur = e["dur"].get<double>();
    const std::string name = e.value("name", "");
    if (cat == "user_annotation" && name.rfind("ProfilerStep#", 0) == 0)
      steps.push_back({ts, ts + dur});
    if ((cat == "cuda_runtime" || cat == "cuda_driver") && e.contains("args") &&
        e["args"].contains("correlation")) {
      launchAt[e["args"]["correlation"].get<int64_t>()] = ts;
    }
    if (cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset") {
      gpu.push_back({ts, ts + dur, e["args"].value("correlation", int64_t{-1})});
    }
  }
  ASSERT_EQ(steps.size(), rank["steps"].size());
  double lo = 1e300, hi = -1e300;
  for (const Gpu& g : gpu) {
    auto l = launchAt.find(g.corr);
    const double at = l == launchAt.end() ? g.start : l->second;
    const bool inStep = std::any_of(steps.begin(), steps.end(),
                                    [&](auto& s) { return at >= s.first && at <= s.second; });
    if (!inStep) continue;
    lo = std::min(lo, g.start);
    hi = std::max(hi, g.end);
  }
  std::vector<std::pair<double, double>> busy;
  for (const Gpu& g : gpu) {
    if (g.end > lo && g.start < hi) busy.push_back({std::max(lo, g.start), std::min(hi, g.end)});
  }
  std::sort(busy.begin(), busy.end());
  double covered = 0, curS = 0, curE = -1e300;
  for (auto [s, e] : busy) {
    if (s > curE) {
      if (curE > curS) covered += curE - curS;
      curS = s;
      curE = e;
    } else {
      curE = std::max(curE, e);
    }
  }
  if (curE > curS) covered += curE - curS;
  const double spanUs = hi - lo, idleUs = spanUs - covered;

  const double reportedSpan = rank["total"]["span_ns"].get<double>() / 1e3;
  const double reportedIdle = rank["total"]["idle_ns"].get<double>() / 1e3;
  // Kineto rounds to the µs (ns-fraction traces aside): a few µs over ~660 ms.
  EXPECT_NEAR(reportedSpan, spanUs, 5.0);
  EXPECT_NEAR(reportedIdle, idleUs, 0.001 * idleUs + 5.0);
  EXPECT_GT(idleUs, 0.5 * spanUs);  // this DDP trace idles most of its steps (a small model)
}

TEST(SharedDataUtilization, CheckGatesTheIdleShareOfTheRealBeforeAfterPair) {
  SKIP_WITHOUT_SHARED_DATA();
  testing::TempDir dir;
  const std::string base = (dir.path() / "before.json").string();
  const std::string before = testing::sharedData("nsys/nsys-ai-2gpu-mfu-before.sqlite").string();
  const std::string after = testing::sharedData("nsys/nsys-ai-2gpu-mfu-after.sqlite").string();
  ASSERT_EQ(testing::runBubblescope({"analyze", before, "--format", "json", "-o", base}).exitCode,
            0);
  const json baseline = json::parse(testing::readFile(base));
  const json current = analyze(after);
  const double baseShare = baseline["utilization"]["total"]["idle_ns"].get<double>() /
                           baseline["utilization"]["total"]["span_ns"].get<double>();
  const double curShare = current["utilization"]["total"]["idle_ns"].get<double>() /
                          current["utilization"]["total"]["span_ns"].get<double>();
  ASSERT_GT(curShare - baseShare, 0.02);  // the "after" export idles more: a regression to catch

  const auto same =
      testing::runBubblescope({"check", "--baseline", base, before, "--max-idle-pp", "0.5"});
  EXPECT_EQ(same.exitCode, 0) << same.out << same.err;
  const auto worse =
      testing::runBubblescope({"check", "--baseline", base, after, "--max-idle-pp", "2"});
  EXPECT_EQ(worse.exitCode, 1) << worse.out << worse.err;
  EXPECT_NE(worse.out.find("idle share"), std::string::npos) << worse.out;
  EXPECT_NE(worse.out.find("REGRESSED"), std::string::npos) << worse.out;
  const auto loose =
      testing::runBubblescope({"check", "--baseline", base, after, "--max-idle-pp", "20"});
  EXPECT_EQ(loose.exitCode, 0) << loose.out << loose.err;
}

}  // namespace
}  // namespace bubblescope::analysis
