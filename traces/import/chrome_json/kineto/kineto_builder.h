#pragma once
// One Kineto (PyTorch profiler) trace file -> one RankTrace. How each event kind maps:
//   kernel, gpu_memcpy, gpu_memset, cuda_sync    -> kernels, memcpys, memsets, syncs (device =
//                                                   args.device or pid, stream = args.stream)
//   cuda_runtime, cuda_driver                    -> apiCalls (correlation joins the kernels)
//   user_annotation (record_function)            -> ranges in the default domain: PP:0F3,
//                                                   ProfilerStep#N, ... ("nccl:*" titles: domain
//                                                   "NCCL")
//   cpu_op                                       -> ranges in domain "cpu_op"
//   python_function                              -> ranges in domain "python"
//   record_param_comms, nccl:* titles            -> ncclCalls (+ correlations to NCCL kernels,
//                                                   or to the launch of one that never finished),
//                                                   and ranges in domain "NCCL"
//   gpu_user_annotation                          -> skipped: the ops' device spans come from
//   kernels "Record Window End" instant                  -> meta.alive_ns: the profiler watched the
//                                                   process until then (the hang analysis's margin)
//   "M" thread_name / stream names               -> thread and stream names
//   "[memory]" instants on a CUDA device         -> memory (the allocator's totals after each
//                                                   call); deviceProperties[].totalGlobalMem ->
//                                                   the device's memory
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "traces/import/chrome_json/dialect_builder.h"
#include "traces/import/chrome_json/kineto/kineto_comms.h"
#include "traces/import/chrome_json/trace_event.h"
#include "traces/import/imported.h"
#include "traces/import/rank_builder.h"

namespace bubblescope::traces::import {

class KinetoBuilder : public DialectBuilder {
 public:
  explicit KinetoBuilder(const std::filesystem::path& file);

  void topLevel(std::string_view key, std::string_view json, size_t capacity) override;
  void event(const TraceEvent& e, TraceEventParser& parser) override;
  // Throws TraceError when the file held no events at all.
  ImportedFile finish() override;

 private:
  struct Open {  // a "B" event waiting for its "E"
    std::string name;
    std::string cat;
    TimeNs start;
  };

  void complete(const TraceEvent& e, TraceEventParser& parser);
  void metadata(const TraceEvent& e, TraceEventParser& parser);
  void memoryEvent(const TraceEvent& e, TraceEventParser& parser);
  void gpuActivity(const TraceEvent& e, const TraceEventArgs& a, TimeNs start, TimeNs end);
  ThreadIndex cpuThread(const TraceEvent& e);
  void skip(std::string_view what) { ++skipped_[std::string(what)]; }

  std::filesystem::path file_;
  RankBuilder rank_;
  TimeNs base_ = 0;
  bool sawBase_ = false;
  std::optional<int64_t> cpuPid_;
  StringId domainDefault_ = 0, domainNccl_, domainCpuOp_, domainPython_;
  std::map<uint32_t, std::string> deviceNames_;
  std::map<uint32_t, uint64_t> deviceMemory_;  // totalGlobalMem by device id
  std::unordered_set<int64_t> gpuPids_;
  std::map<std::pair<int64_t, int64_t>, std::vector<Open>> open_;
  ProcessGroups groups_;  // before the records that point into it
  std::vector<CommRecord> comms_;
  std::vector<CommTitle> titles_;
  std::vector<NcclKernelRef> ncclKernels_;
  std::optional<TimeNs> windowEnd_;  // Kineto's "Record Window End"
  std::map<std::string, uint64_t> skipped_;
  uint64_t events_ = 0, malformed_ = 0;
};

}  // namespace bubblescope::traces::import
