// The CUPTI activity decoder on records built here as CUPTI 13 lays them out (cupti_activity.h):
// what becomes a row of which table, with which fields, and what is dropped and counted.
// Written through a real TraceWriter and read back through the reader.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "agent/cupti/activity_decoder.h"
#include "agent/cupti/api_names.h"
#include "tests/agent/cupti_records.h"
#include "tests/support/temp_dir.h"
#include "traces/sqlite/trace_reader.h"
#include "traces/sqlite/trace_writer.h"

namespace bubblescope::agent {
namespace {

using traces::ApiDomain;

constexpr uint32_t kLaunchCbid = 211;  // any ids: the test names them
constexpr uint32_t kGetDeviceCbid = 17;
constexpr uint32_t kDriverLaunchCbid = 307;
constexpr uint32_t kDriverCtxGetCbid = 20;

CUpti_ActivityAPI apiCall(CUpti_ActivityKind kind, uint32_t cbid, uint64_t start, uint64_t end,
                          uint32_t correlation) {
  CUpti_ActivityAPI a;
  std::memset(&a, 0, sizeof a);
  a.kind = kind;
  a.cbid = cbid;
  a.start = start;
  a.end = end;
  a.processId = 100;
  a.threadId = 4242;
  a.correlationId = correlation;
  a.returnValue = 0;
  return a;
}

CUpti_ActivityExternalCorrelation external(CUpti_ExternalCorrelationKind kind, uint64_t id,
                                           uint32_t correlation) {
  CUpti_ActivityExternalCorrelation c;
  std::memset(&c, 0, sizeof c);
  c.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
  c.externalKind = kind;
  c.externalId = id;
  c.correlationId = correlation;
  return c;
}

template <class Record>
const CUpti_Activity& asActivity(const Record& r) {
  return reinterpret_cast<const CUpti_Activity&>(r);
}

class ActivityDecoderTest : public ::testing::Test {
 protected:
  ActivityDecoderTest() {
    names_.set(ApiDomain::Runtime, kLaunchCbid, "cudaLaunchKernel_v7000");
    names_.set(ApiDomain::Runtime, kGetDeviceCbid, "cudaGetDevice_v3020");
    names_.set(ApiDomain::Driver, kDriverLaunchCbid, "cuLaunchKernel");
    names_.set(ApiDomain::Driver, kDriverCtxGetCbid, "cuCtxGetCurrent");
    decoder_.beginFile();
    decoder_.setWindows({TimeSpan{1'000, 100'000}});
  }

  // Decodes the records into a fresh file and reads it back.
  template <class... Records>
  traces::RankTrace decodeAll(const Records&... records) {
    {
      traces::RankMeta meta;
      meta.source = "test";
      traces::TraceWriter out(file_, meta);
      (decoder_.decode(asActivity(records), out), ...);
      out.close();
    }
    return traces::readRankTrace(file_);
  }

  testing::TempDir tmp_;
  std::filesystem::path file_ = tmp_ / "rank.sqlite";
  ApiNames names_;
  ActivityDecoder decoder_{&names_};
};

TEST_F(ActivityDecoderTest, KernelBecomesARowWithDemangledNameStreamAndCorrelation) {
  const auto k = kernelRecord(2'000, 5'000, 42, "_Z6matmulPKfS0_Pfi");
  const traces::RankTrace t = decodeAll(k);
  ASSERT_EQ(t.kernels->size(), 1u);
  EXPECT_EQ(t.kernels->start[0], 2'000);
  EXPECT_EQ(t.kernels->end[0], 5'000);
  EXPECT_EQ(t.kernels->correlation[0], 42u);
  EXPECT_EQ(t.strings.at(t.kernels->name[0]), "matmul(float const*, float const*, float*, int)");
  const traces::Stream& s = t.streams.at(t.kernels->stream[0]);
  EXPECT_EQ(s.device, 1u);
  EXPECT_EQ(s.streamId, 13u);
  EXPECT_EQ(decoder_.counts().written, 1u);
}

CUpti_ActivityMemory4 memoryRecord(CUpti_ActivityMemoryOperationType op,
                                   CUpti_ActivityMemoryKind kind, uint64_t bytes, uint64_t at) {
  CUpti_ActivityMemory4 m;
  std::memset(&m, 0, sizeof m);
  m.kind = CUPTI_ACTIVITY_KIND_MEMORY2;
  m.memoryOperationType = op;
  m.memoryKind = kind;
  m.address = 0x7f0000000000 + at;
  m.bytes = bytes;
  m.timestamp = at;
  m.deviceId = 1;
  return m;
}

// MEMORY2: each device allocation or release becomes the process's reserve on that device after
// it, counted from before the capture window (the weights allocated at start-up) but written
// only inside it; pinned host memory is not the device's. DEVICE: the total memory.
TEST_F(ActivityDecoderTest, MemoryRecordsBecomeTheReserveAfterEachAndDevicesTheirCapacity) {
  constexpr auto kAlloc = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION;
  constexpr auto kRelease = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE;
  constexpr auto kDevice = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  CUpti_ActivityDevice5 device;
  std::memset(&device, 0, sizeof device);
  device.kind = CUPTI_ACTIVITY_KIND_DEVICE;
  device.id = 1;
  device.name = "NVIDIA H100 80GB HBM3";
  device.globalMemorySize = 85'045'477'376;
  const traces::RankTrace t =
      decodeAll(device, memoryRecord(kAlloc, kDevice, 1000, 500),  // before the window
                memoryRecord(kAlloc, kDevice, 300, 2'000),
                memoryRecord(kAlloc, CUPTI_ACTIVITY_MEMORY_KIND_PINNED, 7, 2'500),
                memoryRecord(kRelease, kDevice, 1000, 3'000));
  ASSERT_EQ(t.memory->size(), 2u);
  EXPECT_EQ(t.memory->start, (std::vector<TimeNs>{2'000, 3'000}));
  EXPECT_EQ(t.memory->reserved, (std::vector<int64_t>{1300, 300}));
  EXPECT_EQ(t.memory->allocated,
            (std::vector<int64_t>{traces::kBytesUnknown, traces::kBytesUnknown}));
  EXPECT_EQ(t.memory->device, (std::vector<uint32_t>{1, 1}));
  ASSERT_EQ(t.devices.size(), 1u);
  EXPECT_EQ(t.devices[0].memoryBytes, 85'045'477'376u);
}

TEST_F(ActivityDecoderTest, CKernelNamesAsNcclsAreKeptAsTheyAre) {
  EXPECT_EQ(demangleKernelName("ncclDevKernel_SendRecv"), "ncclDevKernel_SendRecv");
  EXPECT_EQ(demangleKernelName("_Z3addPfS_"), "add(float*, float*)");
  EXPECT_EQ(demangleKernelName(nullptr), "");
}

TEST_F(ActivityDecoderTest, CopiesSetsAndSyncsKeepBytesKindsAndTheirDevice) {
  CUpti_ActivityContext3 context;
  std::memset(&context, 0, sizeof context);
  context.kind = CUPTI_ACTIVITY_KIND_CONTEXT;
  context.contextId = 5;
  context.deviceId = 1;

  CUpti_ActivityMemcpy6 copy;
  std::memset(&copy, 0, sizeof copy);
  copy.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  copy.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
  copy.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
  copy.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  copy.bytes = 1 << 20;
  copy.start = 3'000;
  copy.end = 4'000;
  copy.deviceId = 1;
  copy.streamId = 14;
  copy.correlationId = 50;

  CUpti_ActivityMemset4 set;
  std::memset(&set, 0, sizeof set);
  set.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  set.value = 0xAB;
  set.bytes = 4096;
  set.start = 4'100;
  set.end = 4'200;
  set.deviceId = 1;
  set.streamId = 14;
  set.correlationId = 51;

  CUpti_ActivitySynchronization2 sync;
  std::memset(&sync, 0, sizeof sync);
  sync.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  sync.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
  sync.start = 4'300;
  sync.end = 9'000;
  sync.contextId = 5;
  sync.streamId = 14;
  sync.correlationId = 52;

  const traces::RankTrace t = decodeAll(context, copy, set, sync);
  ASSERT_EQ(t.memcpys->size(), 1u);
  EXPECT_EQ(t.memcpys->bytes[0], uint64_t{1} << 20);
  EXPECT_EQ(t.memcpys->copyKind[0], traces::MemcpyKind::HostToDevice);
  EXPECT_EQ(t.memcpys->correlation[0], 50u);
  EXPECT_EQ(t.streams.at(t.memcpys->stream[0]).streamId, 14u);
  ASSERT_EQ(t.memsets->size(), 1u);
  EXPECT_EQ(t.memsets->bytes[0], 4096u);
  EXPECT_EQ(t.memsets->correlation[0], 51u);
  ASSERT_EQ(t.syncs->size(), 1u);
  EXPECT_EQ(t.syncs->syncKind[0], traces::SyncKind::StreamSynchronize);
  EXPECT_EQ(t.syncs->end[0], 9'000);
  EXPECT_EQ(t.syncs->correlation[0], 52u);
  // The sync record names only its context: the device comes from the context record.
  EXPECT_EQ(t.streams.at(t.syncs->stream[0]).device, 1u);
}

TEST_F(ActivityDecoderTest, ExternalIdTiesALaunchAndItsKernelToTheNcclCall) {
  // CUPTI writes the external correlation just before the API record it belongs to.
  const auto ext = external(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, 0x8000000000010001ull, 42);
  const auto launch = apiCall(CUPTI_ACTIVITY_KIND_RUNTIME, kLaunchCbid, 1'500, 1'900, 42);
  const auto k = kernelRecord(2'000, 5'000, 42, "ncclDevKernel_SendRecv");
  const auto nvtxExt = external(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1, 9, 43);
  const auto driverLaunch =
      apiCall(CUPTI_ACTIVITY_KIND_DRIVER, kDriverLaunchCbid, 6'000, 6'100, 43);
  const traces::RankTrace t = decodeAll(ext, launch, k, nvtxExt, driverLaunch);

  ASSERT_EQ(t.apiCalls->size(), 2u);
  EXPECT_EQ(t.strings.at(t.apiCalls->name[0]), "cudaLaunchKernel");
  EXPECT_EQ(t.apiCalls->correlation[0], 42u);
  EXPECT_EQ(t.threads.at(t.apiCalls->thread[0]).tid, 4242u);
  EXPECT_EQ(t.strings.at(t.apiCalls->name[1]), "cuLaunchKernel");
  ASSERT_EQ(t.correlations->size(), 2u);
  EXPECT_EQ(t.correlations->correlation[0], 42u);
  EXPECT_EQ(t.correlations->externalKind[0], traces::ExternalKind::NcclCall);
  EXPECT_EQ(t.correlations->externalId[0], 0x8000000000010001ull);
  EXPECT_EQ(t.correlations->externalKind[1], traces::ExternalKind::NvtxRange);
  EXPECT_EQ(t.correlations->externalId[1], 9u);
  ASSERT_EQ(t.kernels->size(), 1u);
  EXPECT_EQ(t.kernels->correlation[0], t.apiCalls->correlation[0]);
}

TEST_F(ActivityDecoderTest, NoisyCallsAndTheirExternalIdsAreDroppedAndCounted) {
  const auto ext = external(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, 5, 60);
  const auto getDevice = apiCall(CUPTI_ACTIVITY_KIND_RUNTIME, kGetDeviceCbid, 1'500, 1'600, 60);
  const auto ctx = apiCall(CUPTI_ACTIVITY_KIND_DRIVER, kDriverCtxGetCbid, 1'700, 1'710, 61);
  const traces::RankTrace t = decodeAll(ext, getDevice, ctx);
  EXPECT_EQ(t.apiCalls->size(), 0u);
  EXPECT_EQ(t.correlations->size(), 0u);
  EXPECT_EQ(decoder_.counts().filtered, 2u);
}

TEST_F(ActivityDecoderTest, RecordsOutsideWindowsOrWithoutTimesAreCountedNotWritten) {
  const auto before = kernelRecord(500, 900, 1, "_Z1kv");         // before the window opened
  const auto after = kernelRecord(200'000, 300'000, 2, "_Z1kv");  // after it closed
  const auto unfinished = kernelRecord(0, 0, 3, "_Z1kv");         // a forced flush of running work
  const auto inside = kernelRecord(1'000, 1'100, 4, "_Z1kv");     // on the window's start
  const traces::RankTrace t = decodeAll(before, after, unfinished, inside);
  ASSERT_EQ(t.kernels->size(), 1u);
  EXPECT_EQ(t.kernels->correlation[0], 4u);
  EXPECT_EQ(decoder_.counts().outsideWindow, 2u);
  EXPECT_EQ(decoder_.counts().incomplete, 1u);
  EXPECT_EQ(decoder_.counts().records, 4u);
}

TEST_F(ActivityDecoderTest, ClockOffsetMovesCuptiTimesToRealtime) {
  decoder_.setWindows({TimeSpan{1'000'000, INT64_MAX}});
  decoder_.setClockOffset(1'000'000);
  const traces::RankTrace t = decodeAll(kernelRecord(10, 20, 7, "_Z1kv"));
  ASSERT_EQ(t.kernels->size(), 1u);
  EXPECT_EQ(t.kernels->start[0], 1'000'010);
  EXPECT_EQ(t.kernels->end[0], 1'000'020);
}

TEST_F(ActivityDecoderTest, DeviceRecordNamesTheGpuWithItsUuid) {
  CUpti_ActivityDevice5 d;
  std::memset(&d, 0, sizeof d);
  d.kind = CUPTI_ACTIVITY_KIND_DEVICE;
  d.id = 1;
  d.name = "NVIDIA H100 80GB HBM3";
  for (int i = 0; i < 16; ++i) d.uuid.bytes[i] = static_cast<char>(i * 17);
  CUpti_ActivityOverhead3 o;
  std::memset(&o, 0, sizeof o);
  o.kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
  o.overheadKind = CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH;
  o.start = 100;
  o.end = 350;
  const traces::RankTrace t = decodeAll(d, d, o, o);
  ASSERT_EQ(t.devices.size(), 1u);
  EXPECT_EQ(t.devices[0].id, 1u);
  EXPECT_EQ(t.strings.at(t.devices[0].name), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(t.devices[0].uuid, "GPU-00112233-4455-6677-8899-aabbccddeeff");
  const auto& overhead = decoder_.overhead().at("buffer_flush");
  EXPECT_EQ(overhead.first, 2u);
  EXPECT_EQ(overhead.second, 500);
}

TEST_F(ActivityDecoderTest, PeerCopyIsACopyWithItsBytesAndCorrelation) {
  CUpti_ActivityMemcpyPtoP4 copy;
  std::memset(&copy, 0, sizeof copy);
  copy.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
  copy.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
  copy.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  copy.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  copy.bytes = 3 << 20;
  copy.start = 6'000;
  copy.end = 8'000;
  copy.deviceId = 1;
  copy.srcDeviceId = 1;
  copy.dstDeviceId = 2;
  copy.streamId = 15;
  copy.correlationId = 60;
  CUpti_ActivityMemcpyPtoP4 unfinished = copy;
  unfinished.end = 0;  // CUPTI had no end time for it: counted, not written

  const traces::RankTrace t = decodeAll(copy, unfinished);
  ASSERT_EQ(t.memcpys->size(), 1u);
  EXPECT_EQ(t.memcpys->start[0], 6'000);
  EXPECT_EQ(t.memcpys->end[0], 8'000);
  EXPECT_EQ(t.memcpys->bytes[0], uint64_t{3} << 20);
  EXPECT_EQ(t.memcpys->copyKind[0], traces::MemcpyKind::PeerToPeer);
  EXPECT_EQ(t.memcpys->correlation[0], 60u);
  EXPECT_EQ(t.streams.at(t.memcpys->stream[0]).streamId, 15u);
  EXPECT_EQ(decoder_.counts().written, 1u);
  EXPECT_EQ(decoder_.counts().incomplete, 1u);
}

TEST(ApiNames, VersionAndPerThreadSuffixesAreDroppedAndNoisyCallsFiltered) {
  EXPECT_EQ(baseApiName("cudaLaunchKernel_v7000"), "cudaLaunchKernel");
  EXPECT_EQ(baseApiName("cuMemcpyHtoDAsync_v2"), "cuMemcpyHtoDAsync");
  EXPECT_EQ(baseApiName("cudaMemcpy"), "cudaMemcpy");
  EXPECT_EQ(baseApiName("cuGraph_vX"), "cuGraph_vX");
  EXPECT_TRUE(keepRuntimeCall("cudaLaunchKernel_v7000"));
  EXPECT_TRUE(keepRuntimeCall("cudaStreamSynchronize"));
  EXPECT_FALSE(keepRuntimeCall("cudaGetDevice_v3020"));
  EXPECT_FALSE(keepRuntimeCall("cudaStreamIsCapturing_ptsz_v10000"));
  EXPECT_FALSE(keepRuntimeCall("cudaEventQuery"));
  EXPECT_TRUE(keepDriverCall("cuLaunchKernelEx"));
  EXPECT_TRUE(keepDriverCall("cuMemcpyDtoHAsync_v2"));
  EXPECT_TRUE(keepDriverCall("cuStreamWaitEvent"));
  EXPECT_FALSE(keepDriverCall("cuCtxGetCurrent"));
  EXPECT_FALSE(keepDriverCall("cuPointerGetAttribute"));

  ApiNames names;
  names.set(ApiDomain::Runtime, 3, "cudaGetDevice_v3020");
  names.set(ApiDomain::Runtime, 5, "cudaMalloc_v3020");
  EXPECT_EQ(names.name(ApiDomain::Runtime, 5), "cudaMalloc");
  EXPECT_FALSE(names.keep(ApiDomain::Runtime, 3));
  EXPECT_TRUE(names.keep(ApiDomain::Runtime, 999));  // unknown ids are kept
  EXPECT_EQ(names.unwanted(ApiDomain::Runtime), std::vector<uint32_t>{3});
  EXPECT_TRUE(names.unwanted(ApiDomain::Driver).empty());
}

}  // namespace
}  // namespace bubblescope::agent
