// Every public Kineto trace imports, with values read from the files by hand (python3 json with
// Decimal, so nanosecond fractions are exact).
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/traces/import/shared_data.h"
#include "traces/import/chrome_json/chrome_trace_import.h"
#include "traces/import/import_summary.h"
#include "traces/import/run_import.h"

namespace bubblescope::traces::import {
namespace {

using testing::sharedData;

RankTrace importOne(const std::string& name) {
  ImportedFile f = importChromeTraceFile(sharedData("kineto/" + name));
  EXPECT_EQ(f.format, "kineto");
  EXPECT_EQ(f.ranks.size(), 1u);
  return std::move(f.ranks.at(0));
}

// The kernel that ran longest: (name, start, duration).
std::tuple<std::string, TimeNs, TimeNs> longestKernel(const RankTrace& t) {
  size_t best = 0;
  for (size_t i = 1; i < t.kernels->size(); ++i) {
    if (t.kernels->end[i] - t.kernels->start[i] > t.kernels->end[best] - t.kernels->start[best])
      best = i;
  }
  return {std::string(t.strings.at(t.kernels->name[best])), t.kernels->start[best],
          t.kernels->end[best] - t.kernels->start[best]};
}

TEST(KinetoRealTraces, EveryPublicTraceImports) {
  SKIP_WITHOUT_SHARED_DATA();
  for (const char* name : {"deepseek-dualpipe-ep64-rank0.json.gz", "hta-ddp2-rank0-nccl.json.gz",
                           "hta-ns-resolution-rank0.json.gz", "hta-ws128-sampled-rank0.json.gz",
                           "hta-ws128-sampled-rank1.json.gz", "hta-ws16-rank0-sendrecv.json.gz"}) {
    const RankTrace t = importOne(name);
    EXPECT_GT(t.kernels->size(), 900u) << name;
    EXPECT_GT(t.apiCalls->size(), 1000u) << name;
    EXPECT_GE(countSteps(t), 1u) << name;
    EXPECT_GE(t.meta.rank, 0) << name;
    EXPECT_TRUE(std::is_sorted(t.kernels->start.begin(), t.kernels->start.end())) << name;
  }
}

// No public trace was recorded with profile_memory: none has [memory] events. Those with
// deviceProperties give the capacity of the device the rank used (a 40 GB device here), those
// without (the sampled 128-rank job) none.
TEST(KinetoRealTraces, NoMemoryEventsAndTheUsedDevicesCapacity) {
  SKIP_WITHOUT_SHARED_DATA();
  const RankTrace ddp = importOne("hta-ddp2-rank0-nccl.json.gz");
  EXPECT_EQ(ddp.memory->size(), 0u);
  ASSERT_EQ(ddp.devices.size(), 1u);
  EXPECT_EQ(ddp.devices[0].id, 0u);
  EXPECT_EQ(ddp.devices[0].memoryBytes, 42297524224u);
  const RankTrace sampled = importOne("hta-ws128-sampled-rank0.json.gz");
  EXPECT_EQ(sampled.memory->size(), 0u);
  for (const Device& d : sampled.devices) EXPECT_EQ(d.memoryBytes, 0u);
}

TEST(KinetoRealTraces, DdpTraceWithBaseTimeAndNcclMetadata) {
  SKIP_WITHOUT_SHARED_DATA();
  const RankTrace t = importOne("hta-ddp2-rank0-nccl.json.gz");
  EXPECT_EQ(t.meta.rank, 0);
  EXPECT_EQ(t.meta.worldSize, 2);
  EXPECT_EQ(t.kernels->size(), 2700u);
  EXPECT_EQ(t.memcpys->size(), 960u);
  EXPECT_EQ(t.memsets->size(), 114u);
  EXPECT_EQ(t.apiCalls->size(), 8740u);
  EXPECT_EQ(t.ranges->size(), 14346u + 42u);  // cpu_op + user_annotation
  EXPECT_EQ(countSteps(t), 3u);               // ProfilerStep#4..6
  // baseTimeNanoseconds 1711964646000000000 + ts 4458676965734.014 us.
  const auto [name, start, duration] = longestKernel(t);
  EXPECT_TRUE(name.starts_with("ncclKernel_AllReduce_RING_LL_Sum_float")) << name;
  EXPECT_EQ(start, 1716423322965734014);
  EXPECT_EQ(duration, 5'993'392);
  EXPECT_EQ(t.meta.extra.at("kineto.pg.0.ranks"), "0,1");
  EXPECT_EQ(t.meta.extra.at("kineto.pg.0.desc"), "default_pg");
  EXPECT_EQ(t.meta.extra.at("kineto.nccl_version"), "2.17.1");
  // 15 all-reduces and 6 broadcasts; the first call (by start) is a broadcast of 53120 floats.
  ASSERT_EQ(t.ncclCalls->size(), 21u);
  EXPECT_EQ(std::count(t.ncclCalls->op.begin(), t.ncclCalls->op.end(), NcclOp::AllReduce), 15);
  EXPECT_EQ(t.ncclCalls->op[0], NcclOp::Broadcast);
  EXPECT_EQ(t.ncclCalls->count[0], 53120u);
  EXPECT_EQ(t.ncclCalls->bytes[0], 53120u * 4);
  EXPECT_EQ(t.ncclCalls->dtype[0], 7);
  EXPECT_EQ(t.ncclCalls->commSize[0], 2);
  EXPECT_EQ(t.ncclCalls->commRank[0], 0);
  EXPECT_EQ(t.ncclCalls->start[0], 1711964646000000000 + 4458676423264031);
  // Every NCCL kernel is tied to the call that launched it.
  EXPECT_EQ(t.correlations->size(), 21u);
}

TEST(KinetoRealTraces, NanosecondFractionsSurviveExactly) {
  SKIP_WITHOUT_SHARED_DATA();
  const RankTrace t = importOne("hta-ns-resolution-rank0.json.gz");
  // The first kernel in the file: ts 1712195495505582.988, dur 4.928 (no base time).
  const auto it = std::find(t.kernels->start.begin(), t.kernels->start.end(), 1712195495505582988);
  ASSERT_NE(it, t.kernels->start.end());
  const size_t i = static_cast<size_t>(it - t.kernels->start.begin());
  EXPECT_EQ(t.kernels->end[i] - t.kernels->start[i], 4'928);
  const auto [name, start, duration] = longestKernel(t);
  EXPECT_EQ(start, 1712195495789354574);
  EXPECT_EQ(duration, 1'112'761);
  EXPECT_EQ(countSteps(t), 5u);
  EXPECT_EQ(t.ncclCalls->size(), 35u);  // 25 all-reduces, 10 broadcasts
}

TEST(KinetoRealTraces, SampledRanksOfA128RankJobAlignIntoOneRun) {
  SKIP_WITHOUT_SHARED_DATA();
  Inputs in;
  in.format = InputFormat::ChromeTrace;
  in.files = {sharedData("kineto/hta-ws128-sampled-rank1.json.gz"),
              sharedData("kineto/hta-ws128-sampled-rank0.json.gz")};
  in.dir = in.files[0].parent_path();
  const ImportedRun r = importRun(in);
  ASSERT_EQ(r.run.ranks.size(), 2u);
  const RankTrace& r0 = r.run.ranks[0];
  const RankTrace& r1 = r.run.ranks[1];
  EXPECT_EQ(r0.meta.rank, 0);
  EXPECT_EQ(r1.meta.rank, 1);
  EXPECT_EQ(r0.meta.worldSize, 128);
  EXPECT_EQ(r1.meta.worldSize, 128);
  EXPECT_EQ(r0.kernels->size(), 1154u);
  EXPECT_EQ(r1.kernels->size(), 1104u);
  // Absolute epoch microseconds on both: the steps start 192 us apart.
  EXPECT_EQ(r0.meta.startNs, 1682725898079292000);
  EXPECT_EQ(r1.meta.startNs, 1682725898079484000);
  EXPECT_EQ(r0.streams.at(r0.kernels->stream[0]).device, 0u);
  EXPECT_EQ(r1.streams.at(r1.kernels->stream[0]).device, 1u);
  EXPECT_EQ(std::get<2>(longestKernel(r0)), 67'827'000);
  EXPECT_EQ(std::get<2>(longestKernel(r1)), 90'771'000);
  EXPECT_EQ(countSteps(r0), 2u);
  EXPECT_EQ(countSteps(r1), 2u);
}

TEST(KinetoRealTraces, OldTraceCollectivesComeFromTheirProcessGroupTitles) {
  SKIP_WITHOUT_SHARED_DATA();
  const RankTrace t = importOne("hta-ws16-rank0-sendrecv.json.gz");
  EXPECT_EQ(t.meta.worldSize, 16);
  EXPECT_EQ(t.kernels->size(), 6080u);
  EXPECT_EQ(countSteps(t), 5u);
  // 55 all_to_all, 10 each of reduce_scatter, all_reduce and all_gather titles.
  ASSERT_EQ(t.ncclCalls->size(), 85u);
  EXPECT_EQ(std::count(t.ncclCalls->op.begin(), t.ncclCalls->op.end(), NcclOp::AllToAll), 55);
  // Its 80 SendRecv kernels carry no metadata: they are tied to calls through their launches.
  EXPECT_GT(t.correlations->size(), 0u);
}

TEST(KinetoRealTraces, DualPipeTraceKeepsItsPhaseAnnotations) {
  SKIP_WITHOUT_SHARED_DATA();
  const RankTrace t = importOne("deepseek-dualpipe-ep64-rank0.json.gz");
  EXPECT_EQ(t.meta.worldSize, 64);
  EXPECT_EQ(t.kernels->size(), 963u);
  EXPECT_EQ(t.apiCalls->size(), 3853u + 40u);  // runtime and driver calls
  const auto [name, start, duration] = longestKernel(t);
  EXPECT_EQ(start, 1740461679483541000);
  EXPECT_EQ(duration, 6'549'000);
  size_t phases = 0;
  for (StringId n : t.ranges->name) phases += t.strings.at(n) == "attn(F)";
  EXPECT_EQ(phases, 4u);
}

}  // namespace
}  // namespace bubblescope::traces::import
