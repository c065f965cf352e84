// The Perfetto export's kernel and NCCL tracks (`export perfetto --with-kernels`): only when asked,
// every kernel and call of the trace once, in its stage's process, on the clock the ops are on.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "analyzer/analyze.h"
#include "analyzer/export/perfetto_export.h"
#include "tests/analyzer/export/slices_nest.h"
#include "tests/analyzer/synthetic_run.h"
#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"
#include "traces/model/sort.h"
#include "traces/sqlite/trace_writer.h"

namespace bubblescope::analysis {
namespace {

using nlohmann::json;

void addKernel(traces::RankTrace& t, traces::StreamIndex stream, traces::StringId name,
               TimeNs start, TimeNs end) {
  t.kernels->start.push_back(start);
  t.kernels->end.push_back(end);
  t.kernels->stream.push_back(stream);
  t.kernels->name.push_back(name);
  t.kernels->correlation.push_back(0);
}

// Each F and BW range gets a kernel with its times on its rank's stream 7, each gradient sync an
// all-reduce on a communicator of the rank's own (so nothing matches it across ranks); rank 0
// also two kernels that overlap on stream 8.
void addDeviceWork(traces::Run& run) {
  for (size_t r = 0; r < run.ranks.size(); ++r) {
    traces::RankTrace& t = run.ranks[r];
    const traces::StreamIndex compute = t.streamIndex(static_cast<uint32_t>(r), 7);
    const traces::StringId gemm = t.strings.intern("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n");
    for (size_t i = 0; i < t.ranges->size(); ++i) {
      const std::string name(t.strings.at(t.ranges->name[i]));
      if (name.starts_with("F mb=") || name.starts_with("BW mb=")) {
        addKernel(t, compute, gemm, t.ranges->start[i], t.ranges->end[i]);
      }
      if (name == "grad_sync") {
        traces::NcclCall c;
        c.start = t.ranges->start[i];
        c.end = t.ranges->end[i];
        c.op = traces::NcclOp::AllReduce;
        c.comm = 100 + r;
        c.commRank = 0;
        c.commSize = 1;
        c.bytes = 1 << 20;
        t.ncclCalls->push(c);
      }
    }
    if (r == 0) {
      const traces::StreamIndex side = t.streamIndex(0, 8);
      const TimeNs at = t.ranges->start.front();
      addKernel(t, side, t.strings.intern("copy_a"), at, at + 300'000);
      addKernel(t, side, t.strings.intern("copy_b"), at + 100'000, at + 400'000);
    }
    traces::sortEvents(t);
  }
}

struct DeviceExport {
  traces::Run run;
  AnalysisResult result;
  PerfettoStats plainStats, stats;
  json plain, withDevice;
};

// 1F1B on 4 stages with stages 2 and 3 5 ms ahead, kernels and NCCL calls added.
DeviceExport exportWithDeviceWork() {
  bubblescope::testing::SyntheticJob job;
  job.schedule = engine::Schedule::oneF1B(4, 4);
  job.steps = 2;
  job.clockSkew = {0, 0, 5'000'000, 5'000'000};
  DeviceExport e;
  e.run = bubblescope::testing::synthesize(job);
  addDeviceWork(e.run);
  e.result = analyzeRun(e.run);
  std::ostringstream plain, withDevice;
  e.plainStats = writePerfettoTrace(e.run, e.result, plain);
  PerfettoOptions options;
  options.deviceTracks = true;
  e.stats = writePerfettoTrace(e.run, e.result, withDevice, options);
  e.plain = json::parse(plain.str());
  e.withDevice = json::parse(withDevice.str());
  return e;
}

std::map<std::string, size_t> countByCategory(const json& doc) {
  std::map<std::string, size_t> n;
  for (const json& ev : doc["traceEvents"]) {
    if (ev["ph"] == "X") ++n[ev["cat"]];
  }
  return n;
}

TEST(DeviceTracks, KernelsAndNcclCallsAreExportedOnlyWhenAsked) {
  const DeviceExport e = exportWithDeviceWork();
  size_t kernels = 0, calls = 0;
  for (const auto& t : e.run.ranks) {
    kernels += t.kernels->size();
    calls += t.ncclCalls->size();
  }
  ASSERT_GT(kernels, 0u);
  ASSERT_EQ(calls, 4u * 2);  // every stage, both steps
  const auto plain = countByCategory(e.plain);
  EXPECT_EQ(plain.count("kernel"), 0u);
  EXPECT_EQ(plain.count("nccl"), 0u);
  EXPECT_EQ(e.plainStats.kernels, 0u);
  const auto withDevice = countByCategory(e.withDevice);
  EXPECT_EQ(withDevice.at("kernel"), kernels);
  EXPECT_EQ(withDevice.at("nccl"), calls);
  EXPECT_EQ(e.stats.kernels, kernels);
  EXPECT_EQ(e.stats.ncclCalls, calls);
  // The analysis is the same in both.
  for (const char* cat : {"idle", "transfer", "step", "F", "BW"}) {
    EXPECT_EQ(withDevice.at(cat), plain.at(cat)) << cat;
  }
  EXPECT_EQ(e.stats.slices, e.plainStats.slices);
}

TEST(DeviceTracks, EachRanksTracksAreInItsStagesProcess) {
  const DeviceExport e = exportWithDeviceWork();
  std::map<int, std::string> processes;
  std::map<std::pair<int, int>, std::string> threads;
  for (const json& ev : e.withDevice["traceEvents"]) {
    if (ev["ph"] != "M") continue;
    if (ev["name"] == "process_name") processes[ev["pid"]] = ev["args"]["name"];
    if (ev["name"] == "thread_name") threads[{ev["pid"], ev["tid"]}] = ev["args"]["name"];
  }
  EXPECT_EQ(processes.size(), 4u) << "no process besides the stages'";
  std::set<std::string> device;
  for (const json& ev : e.withDevice["traceEvents"]) {
    if (ev["ph"] != "X" || (ev["cat"] != "kernel" && ev["cat"] != "nccl")) continue;
    const std::string thread = threads.at({ev["pid"], ev["tid"]});
    const std::string rank = thread.substr(0, thread.find(':'));  // "rank 2"
    EXPECT_NE(processes.at(ev["pid"]).find("(" + rank + ")"), std::string::npos)
        << thread << " in " << processes.at(ev["pid"]);
    device.insert(thread);
  }
  EXPECT_EQ(device, (std::set<std::string>{"rank 0: GPU 0 stream 7", "rank 0: GPU 0 stream 8",
                                           "rank 0: GPU 0 stream 8 #2", "rank 0: NCCL calls",
                                           "rank 1: GPU 1 stream 7", "rank 1: NCCL calls",
                                           "rank 2: GPU 2 stream 7", "rank 2: NCCL calls",
                                           "rank 3: GPU 3 stream 7", "rank 3: NCCL calls"}));
  // The overlapping kernels went to a second lane, so every thread's slices nest.
  bubblescope::testing::expectSlicesOfOneThreadNest(e.withDevice);
}

// The kernels were recorded with each op's times on the rank's own clock; the export puts them on
// the aligned clock the ops are on, so each op has its kernel exactly under it.
TEST(DeviceTracks, KernelsLieUnderTheirOpsOnceClocksAreAligned) {
  const DeviceExport e = exportWithDeviceWork();
  ASSERT_LT(e.result.clock.offsets.at(2), -4'000'000);
  std::map<int, std::set<std::pair<double, double>>> kernels;  // by pid
  for (const json& ev : e.withDevice["traceEvents"]) {
    if (ev["ph"] == "X" && ev["cat"] == "kernel") {
      kernels[ev["pid"]].insert({ev["ts"].get<double>(), ev["dur"].get<double>()});
    }
  }
  size_t ops = 0;
  for (const json& ev : e.withDevice["traceEvents"]) {
    if (ev["ph"] != "X" || !ev["args"].contains("kind")) continue;
    ++ops;
    EXPECT_TRUE(kernels[ev["pid"]].count({ev["ts"].get<double>(), ev["dur"].get<double>()}))
        << ev["name"] << " at " << ev["ts"] << " on pid " << ev["pid"];
  }
  EXPECT_EQ(ops, e.result.pipelines.at(0).ops.size());
}

// A job with no pipeline has nothing but its device work to export: with --with-kernels each rank
// gets a process of its own; without, the command refuses as before.
TEST(DeviceTracks, TheCommandExportsAJobWithNoPipelineOnlyWithKernels) {
  bubblescope::testing::TempDir dir;
  std::filesystem::create_directory(dir / "run");
  for (int r = 0; r < 2; ++r) {
    traces::RankTrace t;
    t.meta.rank = r;
    t.meta.worldSize = 2;
    const traces::StreamIndex s = t.streamIndex(static_cast<uint32_t>(r), 7);
    const traces::StringId gemm = t.strings.intern("gemm");
    for (int k = 0; k < 5; ++k) addKernel(t, s, gemm, k * 2'000'000, k * 2'000'000 + 1'500'000);
    traces::writeRankTrace(t, dir / "run" / ("rank-" + std::to_string(r) + ".sqlite"));
  }
  const std::string out = (dir / "trace.json").string();
  const auto refused = bubblescope::testing::runBubblescope(
      {"export", "perfetto", (dir / "run").string(), "-o", out});
  EXPECT_EQ(refused.exitCode, 2) << refused.err;
  const auto r = bubblescope::testing::runBubblescope(
      {"export", "perfetto", "--with-kernels", (dir / "run").string(), "-o", out});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.err.find("10 kernels and 0 NCCL calls"), std::string::npos) << r.err;
  const json doc = json::parse(bubblescope::testing::readFile(dir / "trace.json"));
  std::set<std::string> processes;
  for (const json& ev : doc["traceEvents"]) {
    if (ev["ph"] == "M" && ev["name"] == "process_name") processes.insert(ev["args"]["name"]);
  }
  EXPECT_EQ(processes, (std::set<std::string>{"rank 0", "rank 1"}));
  EXPECT_EQ(countByCategory(doc).at("kernel"), 10u);
}

}  // namespace
}  // namespace bubblescope::analysis
