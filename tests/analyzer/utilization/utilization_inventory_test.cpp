// A job with no pipeline gets the bubble inventory per rank: its idle gaps by length, and the
// device memory free in each (capacity less the most the job reserved during the gap).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <sstream>

#include "analyzer/report/sections/inventory_section.h"
#include "analyzer/utilization/utilization.h"

namespace bubblescope::analysis {
namespace {

constexpr TimeNs kMs = 1'000'000;
constexpr int64_t kGiB = int64_t{1} << 30;

// One rank, kernels at 0-1, 3-4 and 10-11 ms: idle gaps 1-3 and 4-10 ms. Reserve 10 GiB at 0,
// 30 at 2 ms (inside the first gap), 15 at 3.5 ms (under a kernel) on an 80 GiB device.
traces::Run oneRank(bool withMemory) {
  traces::Run run;
  run.dir = "ddp";
  traces::RankTrace& t = run.ranks.emplace_back();
  t.file = "ddp/rank-00000.sqlite";
  t.meta.rank = 0;
  const traces::StreamIndex s = t.streamIndex(0, 7);
  const traces::StringId gemm = t.strings.intern("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n");
  for (TimeNs at : {0 * kMs, 3 * kMs, 10 * kMs}) {
    t.kernels->start.push_back(at);
    t.kernels->end.push_back(at + kMs);
    t.kernels->stream.push_back(s);
    t.kernels->name.push_back(gemm);
    t.kernels->correlation.push_back(0);
  }
  t.devices.push_back(traces::Device{0, 0, "", withMemory ? uint64_t{80} << 30 : 0});
  if (withMemory) {
    for (auto [at, reserved] : {std::pair{TimeNs{0}, 10 * kGiB}, std::pair{2 * kMs, 30 * kGiB},
                                std::pair{3 * kMs + kMs / 2, 15 * kGiB}}) {
      t.memory->start.push_back(at);
      t.memory->device.push_back(0);
      t.memory->allocated.push_back(reserved / 2);
      t.memory->reserved.push_back(reserved);
    }
  }
  return run;
}

TEST(UtilizationInventory, EachRankHasItsGapsAndTheFreeMemoryInThem) {
  const UtilizationResult u = utilizationOf(oneRank(true), false);
  ASSERT_EQ(u.ranks.size(), 1u);
  const IdleInventory& inv = u.ranks[0].inventory;
  EXPECT_EQ(inv.bubbles, 2);
  EXPECT_EQ(inv.idle, 8 * kMs);
  EXPECT_EQ(inv.largest, 6 * kMs);
  EXPECT_EQ(inv.histogram[1].count, 1);  // 1-5 ms
  EXPECT_EQ(inv.histogram[2].count, 1);  // 5-10 ms
  EXPECT_EQ(inv.memoryBasis, MemoryBasis::Reserved);
  EXPECT_EQ(inv.freeMemoryBubbles, 2);
  EXPECT_EQ(inv.freeMemoryMin, 50 * kGiB);     // 1-3 ms: 30 GiB reserved at 2 ms
  EXPECT_EQ(inv.freeMemoryMedian, 65 * kGiB);  // 4-10 ms: 15 GiB
  ASSERT_FALSE(u.largestGaps.empty());
  EXPECT_EQ(u.largestGaps[0].freeMemory, 65 * kGiB);

  std::ostringstream text;
  writeRankInventoryText(u.ranks, text);
  EXPECT_NE(text.str().find("rank 0: 2 bubbles"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("50.0 GiB / 65.0 GiB of 80.0 GiB (reserved)"), std::string::npos)
      << text.str();
  std::ostringstream json;
  {
    JsonWriter out(json);
    writeRankInventoryJson(u.ranks, out);
  }
  const nlohmann::json j = nlohmann::json::parse(json.str());
  EXPECT_EQ(j[0]["free_memory"]["min_bytes"], 50 * kGiB);
  EXPECT_EQ(j[0]["free_memory"]["basis"], "reserved");
}

TEST(UtilizationInventory, WithoutMemoryEventsFreeMemoryIsNotRecorded) {
  const UtilizationResult u = utilizationOf(oneRank(false), false);
  const IdleInventory& inv = u.ranks.at(0).inventory;
  EXPECT_EQ(inv.bubbles, 2);
  EXPECT_FALSE(inv.freeMemoryKnown());
  std::ostringstream md;
  writeRankInventoryMarkdown(u.ranks, md);
  EXPECT_NE(md.str().find("| not recorded |"), std::string::npos) << md.str();
}

}  // namespace
}  // namespace bubblescope::analysis
