// Writing a trace and reading it back gives the same model, table by table.
#include <gtest/gtest.h>

#include "tests/support/temp_dir.h"
#include "tests/traces/sample_trace.h"
#include "traces/errors.h"
#include "traces/format/schema.h"
#include "traces/model/sort.h"
#include "traces/sqlite/trace_reader.h"
#include "traces/sqlite/trace_writer.h"

namespace bubblescope::traces {
namespace {

using testing::sampleTrace;
using testing::TempDir;

// Names of a column, resolved through the trace's own string table.
template <class Column>
std::vector<std::string> names(const RankTrace& t, const Column& ids) {
  std::vector<std::string> out;
  for (auto id : ids) out.emplace_back(t.strings.at(id));
  return out;
}

TEST(TraceRoundTrip, MetadataSurvives) {
  TempDir dir;
  const RankTrace in = sampleTrace(2);
  writeRankTrace(in, dir / "rank-00002.sqlite");
  const RankTrace out = readRankTrace(dir / "rank-00002.sqlite");
  EXPECT_EQ(out.meta.schemaVersion, kSchemaVersion);
  EXPECT_EQ(out.meta.source, "test");
  EXPECT_EQ(out.meta.runId, "run-42");
  EXPECT_EQ(out.meta.rank, 2);
  EXPECT_EQ(out.meta.localRank, 2);
  EXPECT_EQ(out.meta.worldSize, 4);
  EXPECT_EQ(out.meta.host, "node-a");
  EXPECT_EQ(out.meta.pid, 4002);
  EXPECT_EQ(out.meta.command, "python train.py --pp 4");
  EXPECT_EQ(out.meta.startNs, in.meta.startNs);
  EXPECT_TRUE(out.meta.cudaCapture);
  ASSERT_EQ(out.meta.clockAnchors.size(), 1u);
  EXPECT_EQ(out.meta.clockAnchors[0].cuptiNs, in.meta.clockAnchors[0].cuptiNs);
  ASSERT_EQ(out.meta.captureWindows.size(), 1u);
  EXPECT_EQ(out.meta.captureWindows[0].end, in.meta.captureWindows[0].end);
  EXPECT_EQ(out.meta.captureWindows[0].reason, "record");
  EXPECT_EQ(out.meta.dropped.at("nvtx"), 3u);
  EXPECT_EQ(out.meta.droppedTotal(), 3u);
  EXPECT_EQ(out.meta.extra.at("BUBBLESCOPE_PP_SIZE"), "4");
}

TEST(TraceRoundTrip, EventsComeBackSortedWithTheirNames) {
  TempDir dir;
  RankTrace in = sampleTrace(0);
  writeRankTrace(in, dir / "t.sqlite");
  const RankTrace out = readRankTrace(dir / "t.sqlite");
  sortEvents(in);

  EXPECT_EQ(out.eventCount(), in.eventCount());
  EXPECT_EQ(out.ranges->start, in.ranges->start);
  EXPECT_EQ(out.ranges->end, in.ranges->end);
  EXPECT_EQ(out.ranges->depth, in.ranges->depth);
  EXPECT_EQ(names(out, out.ranges->name), names(in, in.ranges->name));
  EXPECT_EQ(names(out, out.ranges->domain), names(in, in.ranges->domain));
  EXPECT_EQ(out.marks->start, in.marks->start);
  EXPECT_EQ(out.kernels->start, in.kernels->start);
  EXPECT_EQ(out.kernels->correlation, in.kernels->correlation);
  EXPECT_EQ(names(out, out.kernels->name), names(in, in.kernels->name));
  EXPECT_EQ(out.memcpys->bytes, in.memcpys->bytes);
  EXPECT_EQ(out.memcpys->copyKind, in.memcpys->copyKind);
  EXPECT_EQ(out.memsets->bytes, in.memsets->bytes);
  EXPECT_EQ(out.syncs->stream, std::vector<StreamIndex>{kNoStream});
  EXPECT_EQ(out.syncs->syncKind, in.syncs->syncKind);
  EXPECT_EQ(out.apiCalls->correlation, in.apiCalls->correlation);
  EXPECT_EQ(out.ncclCalls->comm, in.ncclCalls->comm);
  EXPECT_EQ(out.ncclCalls->peer, in.ncclCalls->peer);
  EXPECT_EQ(out.ncclCalls->seq, in.ncclCalls->seq);
  EXPECT_EQ(out.ncclCalls->streamHandle, in.ncclCalls->streamHandle);
  EXPECT_EQ(out.correlations->externalId, in.correlations->externalId);
}

TEST(TraceRoundTrip, ThreadsStreamsAndDevicesKeepTheirIdentity) {
  TempDir dir;
  writeRankTrace(sampleTrace(0), dir / "t.sqlite");
  const RankTrace out = readRankTrace(dir / "t.sqlite");
  ASSERT_EQ(out.threads.size(), 2u);
  const auto rangeNames = names(out, out.ranges->name);
  const size_t send =
      std::find(rangeNames.begin(), rangeNames.end(), "ncclSend") - rangeNames.begin();
  ASSERT_LT(send, rangeNames.size());
  EXPECT_EQ(out.strings.at(out.threads[out.ranges->thread[send]].name), "stage send");
  ASSERT_EQ(out.devices.size(), 1u);
  EXPECT_EQ(out.devices[0].uuid, "GPU-1234");
  EXPECT_EQ(out.strings.at(out.devices[0].name), "NVIDIA H100");
  // The NCCL kernel sits on stream 13 of device 0.
  const size_t ncclKernel = out.kernels->size() - 1;
  EXPECT_EQ(out.streams[out.kernels->stream[ncclKernel]].streamId, 13u);
}

TEST(TraceWriter, RefusesToOverwriteAnExistingFile) {
  TempDir dir;
  writeRankTrace(sampleTrace(0), dir / "t.sqlite");
  EXPECT_THROW({ TraceWriter w(dir / "t.sqlite", RankMeta{}); }, TraceError);
}

TEST(TraceWriter, CountsEventsButNotCorrelations) {
  TempDir dir;
  TraceWriter w(dir / "t.sqlite", RankMeta{});
  w.add(RangeRecord{1, 2, 1, 1, 0, w.intern("F mb=0"), 0, RangeKind::PushPop, 0, 0});
  w.add(KernelRecord{});
  w.add(CorrelationRecord{1, ExternalKind::NcclCall, 2});
  EXPECT_EQ(w.eventsWritten(), 2u);
}

TEST(TraceWriter, CaptureWindowsCloseAndMetadataUpdates) {
  TempDir dir;
  {
    TraceWriter w(dir / "t.sqlite", RankMeta{});
    const int64_t id = w.openCaptureWindow(100, "attach --steps 2");
    w.closeCaptureWindow(id, 900);
    w.openCaptureWindow(1000, "record");
    w.setDropped("nvtx", 12);
    w.setDropped("nvtx", 14);
    w.setMeta("world_size", "8");
  }
  const RankMeta meta = readRankMeta(dir / "t.sqlite");
  ASSERT_EQ(meta.captureWindows.size(), 2u);
  EXPECT_EQ(meta.captureWindows[0].end, 900);
  EXPECT_EQ(meta.captureWindows[0].reason, "attach --steps 2");
  EXPECT_EQ(meta.captureWindows[1].end, 0);  // still open
  EXPECT_EQ(meta.dropped.at("nvtx"), 14u);
  EXPECT_EQ(meta.worldSize, 8);
}

}  // namespace
}  // namespace bubblescope::traces
