// Kineto JSON written by hand, one feature per test: times, the launch<->kernel join, how CPU ops
// and annotations map to ranges, NCCL metadata, distributedInfo, and what is left out.
#include <gtest/gtest.h>

#include "traces/errors.h"
#include "traces/import/chrome_json/chrome_trace_import.h"

namespace bubblescope::traces::import {
namespace {

ImportedFile importText(const std::string& json) {
  ByteSource source(json, "t.json");
  return importChromeTrace(source);
}

RankTrace importRank(const std::string& events, const std::string& top = "") {
  ImportedFile f = importText("{" + top + "\"traceEvents\": [" + events + "]}");
  EXPECT_EQ(f.ranks.size(), 1u);
  return std::move(f.ranks.at(0));
}

std::string nameOf(const RankTrace& t, StringId id) {
  return std::string(t.strings.at(id));
}

TEST(KinetoImport, RelativeTimesAreAddedToTheBaseTimeInNanoseconds) {
  const RankTrace t = importRank(
      R"J({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#3", "pid": 7, "tid": 7,
          "ts": 4458676388068.751, "dur": 1.5})J",
      R"J("baseTimeNanoseconds": 1711964646000000000, )J");
  ASSERT_EQ(t.ranges->size(), 1u);
  EXPECT_EQ(t.ranges->start[0], 1711964646000000000 + 4458676388068751);
  EXPECT_EQ(t.ranges->end[0] - t.ranges->start[0], 1500);
  EXPECT_EQ(t.meta.source, "kineto");
}

TEST(KinetoImport, WithoutABaseTimesAreEpochMicroseconds) {
  const RankTrace t = importRank(
      R"J({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#551", "pid": 7, "tid": 7,
          "ts": 1682725898079484, "dur": 607904.0})J");
  EXPECT_EQ(t.ranges->start[0], 1682725898079484000);
  EXPECT_EQ(t.ranges->end[0], 1682725898687388000);
  EXPECT_EQ(t.meta.startNs, 1682725898079484000);
}

TEST(KinetoImport, KernelsJoinTheirLaunchesByCorrelation) {
  const RankTrace t = importRank(R"J(
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 8, "ts": 10,
     "dur": 2, "args": {"External id": 5, "cbid": 211, "correlation": 57541}},
    {"ph": "X", "cat": "kernel", "name": "void gemm<float>(float*)", "pid": 1, "tid": 40,
     "ts": 12.5, "dur": 41.407, "args": {"External id": 5, "device": 1, "stream": 40,
     "correlation": 57541, "grid": [512, 1, 1]}},
    {"ph": "f", "id": 57541, "pid": 1, "tid": 40, "ts": 12.5, "cat": "ac2g", "name": "ac2g"},
    {"ph": "M", "name": "thread_name", "pid": 7, "tid": 8,
     "args": {"name": "thread 8 (pt_autograd_0)"}},
    {"ph": "M", "name": "thread_name", "pid": 1, "tid": 40, "args": {"name": "stream 40 "}})J",
                                 R"J("deviceProperties": [{"id": 1, "name": "NVIDIA A100"}], )J");
  ASSERT_EQ(t.apiCalls->size(), 1u);
  ASSERT_EQ(t.kernels->size(), 1u);
  EXPECT_EQ(t.kernels->correlation[0], 57541u);
  EXPECT_EQ(t.apiCalls->correlation[0], 57541u);
  EXPECT_EQ(nameOf(t, t.apiCalls->name[0]), "cudaLaunchKernel");
  EXPECT_EQ(t.kernels->start[0], 12'500);
  EXPECT_EQ(t.kernels->end[0], 12'500 + 41'407);
  const Stream& s = t.streams.at(t.kernels->stream[0]);
  EXPECT_EQ(s.device, 1u);
  EXPECT_EQ(s.streamId, 40u);
  EXPECT_EQ(nameOf(t, s.name), "stream 40");
  EXPECT_EQ(nameOf(t, t.threads.at(t.apiCalls->thread[0]).name), "pt_autograd_0");
  EXPECT_EQ(t.threads.at(t.apiCalls->thread[0]).tid, 8u);
  ASSERT_EQ(t.devices.size(), 1u);
  EXPECT_EQ(nameOf(t, t.devices[0].name), "NVIDIA A100");
  EXPECT_EQ(t.meta.pid, 7);
  EXPECT_TRUE(t.meta.cudaCapture);
}

TEST(KinetoImport, AnnotationsAreDefaultDomainRangesAndCpuOpsHaveTheirOwnDomain) {
  const RankTrace t = importRank(R"J(
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#3", "pid": 7, "tid": 7, "ts": 0, "dur": 100},
    {"ph": "X", "cat": "user_annotation", "name": "PP:1F0", "pid": 7, "tid": 7, "ts": 10, "dur": 50},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 7, "tid": 7, "ts": 11, "dur": 5},
    {"ph": "X", "cat": "python_function", "name": "train.py(12): step", "pid": 7, "tid": 7, "ts": 0, "dur": 99},
    {"ph": "X", "cat": "user_annotation", "name": "nccl:all_reduce", "pid": 7, "tid": 7, "ts": 70, "dur": 5},
    {"ph": "X", "cat": "gpu_user_annotation", "name": "PP:1F0", "pid": 0, "tid": 7, "ts": 12, "dur": 40})J");
  ASSERT_EQ(t.ranges->size(), 5u);  // the gpu_user_annotation copy is not a second op
  std::map<std::string, std::pair<std::string, int>> byName;  // name -> domain, depth
  for (size_t i = 0; i < t.ranges->size(); ++i) {
    byName[nameOf(t, t.ranges->name[i])] = {nameOf(t, t.ranges->domain[i]), t.ranges->depth[i]};
  }
  EXPECT_EQ(byName["ProfilerStep#3"], (std::pair<std::string, int>{"", 0}));
  EXPECT_EQ(byName["PP:1F0"], (std::pair<std::string, int>{"", 1}));
  EXPECT_EQ(byName["aten::mm"], (std::pair<std::string, int>{"cpu_op", 0}));
  EXPECT_EQ(byName["train.py(12): step"], (std::pair<std::string, int>{"python", 0}));
  EXPECT_EQ(byName["nccl:all_reduce"], (std::pair<std::string, int>{"NCCL", 0}));
}

TEST(KinetoImport, RecordParamCommsBecomesAnNcclCallWithPeerSizeAndGroup) {
  const RankTrace t = importRank(R"J(
    {"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 7, "tid": 7, "ts": 100,
     "dur": 20, "args": {"External id": 900, "Collective name": "send", "dtype": "BFloat16",
     "In msg nelems": 1048576, "Out msg nelems": 0, "Group size": 4,
     "Process Group Name": "3", "Process Group Ranks": "[2, 6, 10, 14]", "Dst Rank": 10,
     "Seq": 17}},
    {"ph": "X", "cat": "user_annotation", "name": "nccl:send 6->10", "pid": 7, "tid": 7,
     "ts": 101, "dur": 18, "args": {"External id": 901}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7, "ts": 105,
     "dur": 3, "args": {"correlation": 77}},
    {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)",
     "pid": 0, "tid": 21, "ts": 110, "dur": 300, "args": {"External id": 901, "device": 0,
     "stream": 21, "correlation": 77}})J",
                                 R"J("distributedInfo": {"rank": 6, "world_size": 16}, )J");
  ASSERT_EQ(t.ncclCalls->size(), 1u);
  const auto& n = *t.ncclCalls;
  EXPECT_EQ(n.op[0], NcclOp::Send);
  EXPECT_EQ(n.peer[0], 2);  // NCCL's peer: rank 10's place in the group [2, 6, 10, 14]
  EXPECT_EQ(n.count[0], 1048576u);
  EXPECT_EQ(n.bytes[0], 2u * 1048576u);
  EXPECT_EQ(n.dtype[0], 9);  // ncclBfloat16
  EXPECT_EQ(n.commSize[0], 4);
  EXPECT_EQ(n.commRank[0], 1);  // rank 6 is second in [2, 6, 10, 14]
  EXPECT_EQ(n.seq[0], 17u);
  EXPECT_NE(n.comm[0], 0u);
  EXPECT_EQ(n.source[0], NcclSource::Import);
  EXPECT_EQ(n.start[0], 100'000);
  ASSERT_EQ(t.correlations->size(), 1u);
  EXPECT_EQ(t.correlations->correlation[0], 77u);
  EXPECT_EQ(t.correlations->externalKind[0], ExternalKind::NcclCall);
  EXPECT_EQ(t.correlations->externalId[0], n.id[0]);
}

TEST(KinetoImport, OlderTracesNameTheCollectiveOnlyInTheNcclTitle) {
  // PyTorch 2.0: record_param_comms without metadata, a "nccl:*" range inside it, and kernels
  // whose External id is their correlation id: tied to the call through the launch.
  const RankTrace t = importRank(R"J(
    {"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 7, "tid": 7, "ts": 100,
     "dur": 50, "args": {"External id": 41956}},
    {"ph": "X", "cat": "user_annotation", "name": "nccl:all_to_all", "pid": 7, "tid": 7, "ts": 110,
     "dur": 30, "args": {"External id": 41957}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7, "ts": 120,
     "dur": 3, "args": {"External id": 869830, "correlation": 869830}},
    {"ph": "X", "cat": "kernel", "name": "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*)",
     "pid": 0, "tid": 84, "ts": 130, "dur": 300, "args": {"External id": 869830, "device": 0,
     "stream": 84, "correlation": 869830}},
    {"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 7, "tid": 7, "ts": 500,
     "dur": 5, "args": {"External id": 42000}})J");
  ASSERT_EQ(t.ncclCalls->size(), 1u);  // the second names nothing: not counted as a call
  EXPECT_EQ(t.ncclCalls->op[0], NcclOp::AllToAll);
  ASSERT_EQ(t.correlations->size(), 1u);
  EXPECT_EQ(t.correlations->correlation[0], 869830u);
  EXPECT_EQ(t.correlations->externalId[0], t.ncclCalls->id[0]);
}

TEST(KinetoImport, DistributedInfoGivesRankWorldSizeAndProcessGroups) {
  const RankTrace t = importRank(
      R"J({"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 7, "tid": 7, "ts": 1, "dur": 1})J",
      R"J("distributedInfo": {"backend": "nccl", "rank": 5, "world_size": 8, "pg_count": 2,
         "pg_config": [{"pg_name": "0", "pg_desc": "default_pg", "backend_config": "cuda:nccl",
                        "pg_size": 8, "ranks": [0, 1, 2, 3, 4, 5, 6, 7]},
                       {"pg_name": "1", "uid": 1, "pg_size": 2, "ranks": "[1, 5]"}],
         "nccl_version": "2.17.1"}, )J");
  EXPECT_EQ(t.meta.rank, 5);
  EXPECT_EQ(t.meta.worldSize, 8);
  const auto& x = t.meta.extra;
  EXPECT_EQ(x.at("kineto.backend"), "nccl");
  EXPECT_EQ(x.at("kineto.nccl_version"), "2.17.1");
  EXPECT_EQ(x.at("kineto.pg_count"), "2");
  EXPECT_EQ(x.at("kineto.pg.0.name"), "0");
  EXPECT_EQ(x.at("kineto.pg.0.desc"), "default_pg");
  EXPECT_EQ(x.at("kineto.pg.0.size"), "8");
  EXPECT_EQ(x.at("kineto.pg.0.ranks"), "0,1,2,3,4,5,6,7");
  EXPECT_EQ(x.at("kineto.pg.0.backend"), "cuda:nccl");
  EXPECT_EQ(x.at("kineto.pg.1.desc"), "1");
  EXPECT_EQ(x.at("kineto.pg.1.ranks"), "1,5");
}

TEST(KinetoImport, BeginEndPairsAndMemcpyKinds) {
  const RankTrace t = importRank(R"J(
    {"ph": "B", "cat": "user_annotation", "name": "outer", "pid": 7, "tid": 7, "ts": 0},
    {"ph": "B", "cat": "user_annotation", "name": "inner", "pid": 7, "tid": 7, "ts": 1},
    {"ph": "E", "pid": 7, "tid": 7, "ts": 2},
    {"ph": "E", "pid": 7, "tid": 7, "ts": 5},
    {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pinned -> Device)", "pid": 0, "tid": 7,
     "ts": 3, "dur": 1, "args": {"device": 0, "stream": 7, "correlation": 9, "bytes": 147456}},
    {"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "pid": 0, "tid": 7,
     "ts": 4, "dur": 1, "args": {"device": 0, "stream": 7, "correlation": 10, "bytes": 8}})J");
  ASSERT_EQ(t.ranges->size(), 2u);
  EXPECT_EQ(nameOf(t, t.ranges->name[0]), "outer");
  EXPECT_EQ(t.ranges->end[0], 5'000);
  EXPECT_EQ(t.ranges->depth[1], 1);
  ASSERT_EQ(t.memcpys->size(), 1u);
  EXPECT_EQ(t.memcpys->copyKind[0], MemcpyKind::HostToDevice);
  EXPECT_EQ(t.memcpys->bytes[0], 147456u);
  ASSERT_EQ(t.memsets->size(), 1u);
  EXPECT_EQ(t.memsets->bytes[0], 8u);
}

TEST(KinetoImport, KinetosOwnSpansAndGlobalInstantsAreNotTheJobsWork) {
  const ImportedFile f = importText(R"J({"schemaVersion": 1, "traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 7, "tid": 7, "ts": 5, "dur": 1},
    {"ph": "X", "cat": "Trace", "ts": 0, "dur": 9, "pid": "Spans", "tid": "PyTorch Profiler",
     "name": "PyTorch Profiler (0)", "args": {"Op count": 0}},
    {"name": "Record Window End", "ph": "i", "s": "g", "pid": "", "tid": "", "ts": 9}]})J");
  const RankTrace& t = f.ranks.at(0);
  EXPECT_EQ(t.ranges->size(), 1u);
  EXPECT_EQ(t.marks->size(), 0u);
  EXPECT_TRUE(f.skipped.empty());
}

TEST(KinetoImport, LaunchOfAnNcclKernelThatNeverFinishedIsTiedToItsCall) {
  // A job that hung: the receive's kernel was launched, CUPTI never recorded it; the window ended
  // 5 s later.
  const RankTrace t = importRank(R"J(
    {"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 7, "tid": 7, "ts": 100,
     "dur": 20, "args": {"External id": 900, "Collective name": "recv", "dtype": "Float",
     "In msg nelems": 64, "Out msg nelems": 64, "Group size": 2, "Process Group Name": "0",
     "Process Group Ranks": "[0, 1]", "Src Rank": 0, "Seq": 3}},
    {"ph": "X", "cat": "cuda_driver", "name": "cuLaunchKernelEx", "pid": 7, "tid": 7, "ts": 105,
     "dur": 3, "args": {"correlation": 78, "External id": 900}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7, "ts": 130,
     "dur": 3, "args": {"correlation": 79, "External id": 950}},
    {"name": "Record Window End", "ph": "i", "s": "g", "pid": "", "tid": "", "ts": 5000130})J",
                                 R"J("distributedInfo": {"rank": 1, "world_size": 2}, )J");
  ASSERT_EQ(t.ncclCalls->size(), 1u);
  EXPECT_EQ(t.kernels->size(), 0u);
  ASSERT_EQ(t.correlations->size(), 1u);  // the compute launch (79) belongs to no call
  EXPECT_EQ(t.correlations->correlation[0], 78u);
  EXPECT_EQ(t.correlations->externalKind[0], ExternalKind::NcclCall);
  EXPECT_EQ(t.correlations->externalId[0], t.ncclCalls->id[0]);
  EXPECT_EQ(t.meta.aliveNs, 5'000'130'000);  // the profiler watched the process until then
}

// profile_memory: each caching-allocator call is a [memory] instant with the totals after it.
// Host allocations (device type 0) say nothing of the device; totalGlobalMem is the capacity.
TEST(KinetoImport, MemoryInstantsBecomeTheDevicesMemoryUsage) {
  const ImportedFile f = importText(R"J({"deviceProperties": [
      {"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85045477376},
      {"id": 1, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85045477376}],
    "traceEvents": [
    {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 7, "tid": 7,
     "ts": 20, "args": {"Total Reserved": 4194304, "Total Allocated": 2097152, "Bytes": 2097152,
     "Addr": 139637000000000, "Device Type": 1, "Device Id": 0}},
    {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 7, "tid": 7,
     "ts": 10, "args": {"Total Reserved": 0, "Total Allocated": 512, "Bytes": 512,
     "Addr": 9000, "Device Type": 0, "Device Id": -1}},
    {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 7, "tid": 7,
     "ts": 15, "args": {"Total Reserved": 2097152, "Total Allocated": 1024, "Bytes": 1024,
     "Addr": 139636000000000, "Device Type": 1, "Device Id": 0}}]})J");
  const RankTrace& t = f.ranks.at(0);
  ASSERT_EQ(t.memory->size(), 2u);
  EXPECT_EQ(t.memory->start, (std::vector<TimeNs>{15'000, 20'000}));
  EXPECT_EQ(t.memory->reserved, (std::vector<int64_t>{2097152, 4194304}));
  EXPECT_EQ(t.memory->allocated, (std::vector<int64_t>{1024, 2097152}));
  EXPECT_EQ(t.memory->device, (std::vector<uint32_t>{0, 0}));
  EXPECT_EQ(t.marks->size(), 0u);
  ASSERT_EQ(t.devices.size(), 1u);  // the device it used, not every one the host has
  EXPECT_EQ(t.devices[0].memoryBytes, 85045477376u);
  EXPECT_EQ(f.skipped.at("[memory] events of host memory"), 1u);
}

TEST(KinetoImport, ATraceWithNoEventsIsAnError) {
  try {
    importText(R"J({"schemaVersion": 1, "traceEvents": []})J");
    FAIL();
  } catch (const TraceError& e) {
    EXPECT_EQ(std::string(e.what()), "t.json: a trace with no events (its traceEvents is empty)");
  }
}

}  // namespace
// distributedInfo.rank went through std::stoi: 4294967297 was dropped without a word, -3 kept.
TEST(KinetoImport, DistributedRankOutOfRangeIsRefusedNamingTheField) {
  const std::string event = R"J({"ph": "X", "cat": "user_annotation", "name": "F mb=0", "pid": 0,
    "tid": 0, "ts": 0, "dur": 10})J";
  for (const std::string rank : {"4294967297", "-3", "99999999999999999999999"}) {
    try {
      importRank(event, R"J("distributedInfo": {"rank": )J" + rank + R"J(, "world_size": 8}, )J");
      ADD_FAILURE() << rank << " was accepted";
    } catch (const TraceError& e) {
      EXPECT_NE(std::string(e.what()).find("distributedInfo.rank = " + rank.substr(0, 40) +
                                           " is out of range (0 to 2147483647)"),
                std::string::npos)
          << e.what();
    }
  }
  EXPECT_EQ(importRank(event, R"J("distributedInfo": {"rank": 3, "world_size": 8}, )J").meta.rank,
            3);
}

// Integers in args were cast where they were narrowed: "Dst Rank" 2^32 + 3 was peer 3, a GPU event
// of pid 2^32 was device 0, "bytes": -1 was 16 EiB. Each is refused naming the field; the
// op-level timelines' args (stage, DP rank, chunk, microbatch, step) alike.
TEST(KinetoImport, ArgsBeyondWhatTheirFieldHoldsAreRefusedNamingTheField) {
  const std::string comms =
      R"J({"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 7, "tid": 7, "ts": 100,
          "dur": 50, "args": {"Collective name": "send", )J";
  struct Case {
    std::string json;
    std::string says;
  };
  const std::string kineto = R"J({"schemaVersion": 1, "traceEvents": [)J";
  const Case cases[] = {
      {kineto + comms + R"J("Dst Rank": 4294967299}}]})J",
       "args.\"Dst Rank\" = 4294967299 is out of range (-1 to 2147483647)"},
      {kineto + comms + R"J("Src Rank": -2}}]})J",
       "args.\"Src Rank\" = -2 is out of range (-1 to 2147483647)"},
      {kineto + comms + R"J("Group size": 4294967298}}]})J",
       "args.\"Group size\" = 4294967298 is out of range (-1 to 2147483647)"},
      {kineto + R"J({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 1,
          "args": {"device": -1, "stream": 7, "correlation": 1}}]})J",
       "args.device = -1 is out of range (0 to 4294967295)"},
      {kineto + R"J({"ph": "X", "cat": "kernel", "name": "k", "pid": 4294967296, "tid": 7,
          "ts": 1, "dur": 1, "args": {"stream": 7, "correlation": 1}}]})J",
       "pid of a GPU event = 4294967296 is out of range (0 to 4294967295)"},
      {kineto + R"J({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)",
          "pid": 0, "tid": 7, "ts": 1, "dur": 1, "args": {"device": 0, "bytes": -1}}]})J",
       "args.bytes = -1 is out of range (0 to 9223372036854775807)"},
      // Op-level timelines (pid = rank).
      {R"J([{"ph": "X", "name": "forward-compute", "pid": 0, "tid": 1, "ts": 0, "dur": 10,
          "args": {"mb_id": 0, "stage": 4294967296}}])J",
       "args.stage = 4294967296 is out of range (0 to 2147483646)"},
      {R"J([{"ph": "X", "name": "forward-compute", "pid": 0, "tid": 1, "ts": 0, "dur": 10,
          "args": {"mb_id": 0, "stage": 0, "dp_rank": -2}}])J",
       "args.dp_rank = -2 is out of range (0 to 2147483646)"},
      {R"J([{"ph": "X", "name": "forward-compute", "pid": 0, "tid": 1, "ts": 0, "dur": 10,
          "args": {"mb_id": 0, "model_chunk": 65536}}])J",
       "args.model_chunk = 65536 is out of range (-1 to 32767)"},
      // NDTimeline: a microbatch or step beyond int was clamped, a chunk beyond int16 too.
      {R"J([{"ph": "M", "name": "thread_name", "pid": 0, "tid": 0,
           "args": {"name": "PP rank 0, TP rank 0, compute"}},
          {"ph": "X", "name": "forward-compute", "pid": 0, "tid": 0, "ts": 0, "dur": 1,
           "args": {"mb_id": 4294967296}}])J",
       "args.mb_id = 4294967296 is out of range (-2147483647 to 2147483647)"},
      {R"J([{"ph": "M", "name": "thread_name", "pid": 0, "tid": 0,
           "args": {"name": "PP rank 0, TP rank 0, compute"}},
          {"ph": "X", "name": "forward-compute", "pid": 0, "tid": 0, "ts": 0, "dur": 1,
           "args": {"mb_id": 0, "model_chunk": -2}}])J",
       "args.model_chunk = -2 is out of range (-1 to 32767)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.says);
    try {
      importText(c.json);
      ADD_FAILURE() << "imported";
    } catch (const TraceError& e) {
      EXPECT_EQ(std::string(e.what()), "t.json: " + c.says);
    }
  }
}

// A float where an integer belongs was rounded: "Dst Rank": 2.5 was peer 3, "pid": 1.5 process 2.
// Whole floats (3.0) are integers as some tools write them; the rest make the event's args, or the
// event, malformed: counted and said in the summary, not read as another number.
TEST(KinetoImport, NumbersThatAreNoIntegersAreMalformedNotRounded) {
  const ImportedFile f = importText(R"J({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 7, "tid": 7, "ts": 100,
     "dur": 20, "args": {"Collective name": "send", "Dst Rank": 2.5}},
    {"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 7, "tid": 7, "ts": 200,
     "dur": 20, "args": {"Collective name": "send", "Dst Rank": 3.0}},
    {"ph": "X", "cat": "user_annotation", "name": "F mb=0", "pid": 1.5, "tid": 7, "ts": 300,
     "dur": 10},
    {"ph": "X", "cat": "user_annotation", "name": "F mb=1", "pid": 7, "tid": 7, "ts": 400,
     "dur": 10}]})J");
  ASSERT_EQ(f.ranks.size(), 1u);
  const RankTrace& t = f.ranks[0];
  // The first call's args were malformed: no call of peer 3 from them.
  ASSERT_EQ(t.ncclCalls->size(), 1u);
  EXPECT_EQ(t.ncclCalls->peer[0], 3);
  EXPECT_EQ(f.skipped.at("events with malformed args"), 1u);
  EXPECT_EQ(f.skipped.at("malformed events"), 1u);
  for (StringId n : t.ranges->name) EXPECT_NE(t.strings.at(n), "F mb=0");
}

}  // namespace bubblescope::traces::import
