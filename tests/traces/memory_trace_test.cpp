// A trace kept in memory (an agent's memory window for `bubblescope watch`): its image reads back
// through sqlite3_deserialize and the ordinary reader exactly as a file does, and pruning keeps
// only what ended at or after the cutoff.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "tests/support/temp_dir.h"
#include "tests/traces/sample_trace.h"
#include "traces/errors.h"
#include "traces/format/schema.h"
#include "traces/sqlite/sqlite_db.h"
#include "traces/sqlite/trace_reader.h"
#include "traces/sqlite/trace_writer.h"

namespace bubblescope::traces {
namespace {

using testing::sampleTrace;
using testing::TempDir;

RankTrace readImage(const std::string& image) {
  sqlite::Database db = sqlite::Database::fromBytes(image);
  return readRankTrace(db, "memory image");
}

std::set<std::string> rangeNames(const RankTrace& t) {
  std::set<std::string> names;
  for (StringId id : t.ranges->name) names.emplace(t.strings.at(id));
  return names;
}

TEST(MemoryTrace, ImageReadsBackAsTheSameTraceAFileHolds) {
  TempDir dir;
  const RankTrace in = sampleTrace(2);
  writeRankTrace(in, dir / "rank-00002.sqlite");
  const RankTrace fromFile = readRankTrace(dir / "rank-00002.sqlite");

  auto memory = TraceWriter::inMemory(in.meta);
  EXPECT_TRUE(memory->inMemory());
  writeRankTraceRows(in, *memory);
  const std::string image = memory->image();
  EXPECT_EQ(image.size(), memory->imageBytes());
  ASSERT_GE(image.size(), 100u);
  EXPECT_EQ(image.substr(0, 16), std::string("SQLite format 3\0", 16));
  // Not WAL (bytes 18 and 19 are 2 in a WAL database's header): sqlite3_deserialize reads it
  // as it is.
  EXPECT_EQ(image[18], 1);
  EXPECT_EQ(image[19], 1);

  const RankTrace out = readImage(image);
  EXPECT_EQ(out.meta.schemaVersion, kSchemaVersion);
  EXPECT_EQ(out.meta.rank, 2);
  EXPECT_EQ(out.meta.runId, "run-42");
  EXPECT_EQ(out.meta.command, fromFile.meta.command);
  EXPECT_EQ(out.meta.captureWindows.size(), 1u);
  EXPECT_EQ(out.meta.captureWindows[0].reason, "record");
  EXPECT_EQ(out.meta.extra, fromFile.meta.extra);
  EXPECT_EQ(out.eventCount(), fromFile.eventCount());
  EXPECT_EQ(out.ranges->start, fromFile.ranges->start);
  EXPECT_EQ(out.ranges->end, fromFile.ranges->end);
  EXPECT_EQ(rangeNames(out), rangeNames(fromFile));
  EXPECT_EQ(out.kernels->correlation, fromFile.kernels->correlation);
  EXPECT_EQ(out.ncclCalls->comm, fromFile.ncclCalls->comm);
  EXPECT_EQ(out.correlations->externalId, fromFile.correlations->externalId);
  EXPECT_EQ(out.threads.size(), fromFile.threads.size());
}

TEST(MemoryTrace, ImageIsOnlyTakenBetweenBatches) {
  auto memory = TraceWriter::inMemory(RankMeta{});
  memory->add(RangeRecord{10, 20, 1, 1, 0, memory->intern("F mb=0"), 0, RangeKind::PushPop, 0, 0});
  EXPECT_THROW(memory->image(), TraceError);  // half a batch is not a trace
  memory->commit();
  EXPECT_EQ(readImage(memory->image()).ranges->size(), 1u);
}

TEST(MemoryTrace, PruneKeepsWhatEndedAtOrAfterTheCutoff) {
  RankTrace in = sampleTrace(0);
  const TimeNs t0 = in.meta.startNs;
  // A correlation of a call pruned with its kernel (12), beside one still needed (20).
  in.correlations->correlation.push_back(12);
  in.correlations->externalKind.push_back(ExternalKind::Other);
  in.correlations->externalId.push_back(77);
  // Device 0 changes three times, device 1 once, all but one before the cutoff.
  for (auto [ts, device, allocated] :
       {std::tuple{100, 0, 1}, {500, 0, 2}, {1500, 0, 3}, {200, 1, 9}}) {
    in.memory->start.push_back(t0 + ts);
    in.memory->device.push_back(static_cast<uint32_t>(device));
    in.memory->allocated.push_back(allocated);
    in.memory->reserved.push_back(allocated);
  }
  auto memory = TraceWriter::inMemory(in.meta);
  writeRankTraceRows(in, *memory);
  memory->addClockAnchor({t0 + 10, 1, 0});
  memory->addClockAnchor({t0 + 2000, 2, 0});

  memory->pruneBefore(t0 + 1000);
  const RankTrace out = readImage(memory->image());
  // "F mb=0" (100-900) and "ncclSend" (950-990) ended before; "F mb=1" ends at 2000.
  EXPECT_EQ(rangeNames(out), (std::set<std::string>{"step 0", "F mb=1"}));
  EXPECT_EQ(out.marks->size(), 0u);
  ASSERT_EQ(out.kernels->size(), 1u);
  EXPECT_EQ(out.kernels->correlation[0], 20u);  // the NCCL kernel, 960-1500
  EXPECT_EQ(out.memcpys->size(), 0u);
  EXPECT_EQ(out.memsets->size(), 0u);
  EXPECT_EQ(out.syncs->size(), 1u);
  EXPECT_EQ(out.apiCalls->size(), 0u);
  EXPECT_EQ(out.ncclCalls->size(), 0u);
  ASSERT_EQ(out.correlations->size(), 1u);
  EXPECT_EQ(out.correlations->correlation[0], 20u);
  // Each device's memory at the cutoff (its latest sample before it) and what came after.
  std::set<std::pair<uint32_t, int64_t>> samples;
  for (size_t i = 0; i < out.memory->size(); ++i) {
    samples.emplace(out.memory->device[i], out.memory->start[i] - t0);
  }
  EXPECT_EQ(samples, (std::set<std::pair<uint32_t, int64_t>>{{0, 500}, {0, 1500}, {1, 200}}));
  ASSERT_EQ(out.meta.clockAnchors.size(), 2u);
  EXPECT_EQ(out.meta.clockAnchors[0].realtimeNs, t0 + 10);
  EXPECT_EQ(out.meta.clockAnchors[1].realtimeNs, t0 + 2000);
  // Names, threads, devices, windows and metadata stay.
  EXPECT_EQ(out.threads.size(), 2u);
  EXPECT_EQ(out.devices.size(), 1u);
  EXPECT_EQ(out.meta.captureWindows.size(), 1u);
  EXPECT_EQ(out.meta.runId, "run-42");
  EXPECT_EQ(out.meta.dropped.at("nvtx"), 3u);
}

TEST(MemoryTrace, PruningGivesItsPagesBack) {
  auto memory = TraceWriter::inMemory(RankMeta{});
  const StringId name = memory->intern("B mb=3");
  for (int i = 0; i < 20000; ++i) {
    memory->add(RangeRecord{i * 10, i * 10 + 5, 1, 1, 0, name, 1, RangeKind::PushPop, 0, 0});
  }
  memory->commit();
  const uint64_t full = memory->imageBytes();
  memory->pruneBefore(199'000);  // all but the last 100
  const uint64_t pruned = memory->imageBytes();
  EXPECT_LT(pruned * 4, full) << "pruned rows' pages stayed in the image";
  const RankTrace out = readImage(memory->image());
  EXPECT_EQ(out.ranges->size(), 100u);
  EXPECT_EQ(*std::min_element(out.ranges->end.begin(), out.ranges->end.end()), 199'005);
  // It goes on taking rows after a prune.
  memory->add(RangeRecord{300'000, 300'010, 1, 1, 0, name, 1, RangeKind::PushPop, 0, 0});
  memory->commit();
  EXPECT_EQ(readImage(memory->image()).ranges->size(), 101u);
}

}  // namespace
}  // namespace bubblescope::traces
