#include "traces/import/chrome_json/kineto/kineto_builder.h"

#include <simdjson.h>

#include <charconv>

#include "traces/errors.h"
#include "traces/format/field_range.h"
#include "traces/import/chrome_json/kineto/distributed_info.h"
#include "traces/import/chrome_json/microseconds.h"
#include "traces/import/collectives.h"

namespace bubblescope::traces::import {
namespace {

constexpr std::string_view kRecordParamComms = "record_param_comms";

MemcpyKind memcpyKindOf(std::string_view name) {
  static constexpr std::pair<std::string_view, MemcpyKind> kinds[] = {
      {"HtoD", MemcpyKind::HostToDevice},   {"DtoH", MemcpyKind::DeviceToHost},
      {"DtoD", MemcpyKind::DeviceToDevice}, {"HtoH", MemcpyKind::HostToHost},
      {"PtoP", MemcpyKind::PeerToPeer},     {"HtoA", MemcpyKind::HostToArray},
      {"AtoH", MemcpyKind::ArrayToHost},    {"AtoA", MemcpyKind::ArrayToArray},
      {"AtoD", MemcpyKind::ArrayToDevice},  {"DtoA", MemcpyKind::DeviceToArray},
  };
  for (const auto& [token, kind] : kinds) {
    if (name.find(token) != std::string_view::npos) return kind;
  }
  return MemcpyKind::Unknown;
}

SyncKind syncKindOf(std::string_view name) {
  if (name.starts_with("Event Sync")) return SyncKind::EventSynchronize;
  if (name.starts_with("Stream Wait Event")) return SyncKind::StreamWaitEvent;
  if (name.starts_with("Stream Sync")) return SyncKind::StreamSynchronize;
  if (name.starts_with("Context Sync")) return SyncKind::ContextSynchronize;
  return SyncKind::Unknown;
}

// Kineto names threads "thread 2919752 (pt_autograd_0)": the part in parentheses is the name.
std::string_view threadName(std::string_view s) {
  const size_t open = s.find('(');
  if (s.starts_with("thread ") && open != std::string_view::npos && s.ends_with(")")) {
    return s.substr(open + 1, s.size() - open - 2);
  }
  return s;
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

uint32_t u32(std::optional<int64_t> v) {
  return v && *v > 0 && *v <= UINT32_MAX ? static_cast<uint32_t>(*v) : 0;
}

// What c10d's collective args say: on a record_param_comms, and copied onto its kernels by newer
// Kineto. Times, thread and external id are the caller's. Ranks are range-checked: a cast would
// wrap "Dst Rank" 2^32 + 3 to peer 3.
CommRecord collectiveArgs(const TraceEventArgs& a, const std::filesystem::path& file,
                          ProcessGroups& groups) {
  CommRecord r;
  r.named = !a.collective.empty();
  if (r.named) r.op = collectiveOp(a.collective);
  r.coalesced = a.collective == "coalesced";
  r.peer = a.dstRank   ? fieldInRange<int32_t>(file, "args.\"Dst Rank\"", *a.dstRank, -1, INT32_MAX)
           : a.srcRank ? fieldInRange<int32_t>(file, "args.\"Src Rank\"", *a.srcRank, -1, INT32_MAX)
                       : -1;
  r.inNelems = static_cast<uint64_t>(std::max<int64_t>(0, a.inNelems.value_or(0)));
  r.outNelems = static_cast<uint64_t>(std::max<int64_t>(0, a.outNelems.value_or(0)));
  r.dtype = torchDataType(a.dtype);
  r.group = groups.intern(a.pgName, a.pgRanks);
  r.groupSize =
      a.groupSize ? fieldInRange<int32_t>(file, "args.\"Group size\"", *a.groupSize, -1, INT32_MAX)
                  : -1;
  r.seq = static_cast<uint64_t>(std::max<int64_t>(0, a.seq.value_or(0)));
  return r;
}

// NCCL's send/receive kernels: ncclDevKernel_SendRecv, ncclKernel_SendRecv_RING_..., and the
// Send / Recv kernels of older NCCL.
bool pointToPointKernel(std::string_view name) {
  return name.find("SendRecv") != std::string_view::npos ||
         name.find("_Send") != std::string_view::npos ||
         name.find("_Recv") != std::string_view::npos;
}

}  // namespace

KinetoBuilder::KinetoBuilder(const std::filesystem::path& file) : file_(file) {
  domainNccl_ = rank_.intern("NCCL");
  domainCpuOp_ = rank_.intern("cpu_op");
  domainPython_ = rank_.intern("python");
  rank_.meta().source = "kineto";
  rank_.meta().agentVersion.clear();
}

void KinetoBuilder::topLevel(std::string_view key, std::string_view json, size_t capacity) {
  RankMeta& meta = rank_.meta();
  if (key == "distributedInfo") {
    applyDistributedInfo(json, capacity, meta, file_);
  } else if (key == "baseTimeNanoseconds") {
    std::string_view digits = json;
    while (!digits.empty() && (digits.front() == '"' || digits.front() == ' '))
      digits.remove_prefix(1);
    int64_t ns = 0;
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), ns);
    if (ec == std::errc() && ptr != digits.data()) {
      base_ = ns;
      sawBase_ = true;
    }
  } else if (key == "deviceProperties") {
    simdjson::ondemand::parser parser;
    try {
      auto doc = parser.iterate(json.data(), json.size(), capacity);
      for (auto d : doc.get_array()) {
        int64_t id = -1, memory = 0;
        std::string_view name;
        for (auto f : d.get_object()) {
          const std::string_view k = f.unescaped_key();
          if (k == "id")
            id = f.value().get_int64();
          else if (k == "name")
            name = f.value().get_string();
          else if (k == "totalGlobalMem")
            memory = f.value().get_int64();
        }
        if (id >= 0 && id <= UINT32_MAX) {
          deviceNames_[static_cast<uint32_t>(id)] = std::string(name);
          if (memory > 0) deviceMemory_[static_cast<uint32_t>(id)] = static_cast<uint64_t>(memory);
        }
      }
    } catch (const simdjson::simdjson_error&) {
      // Device names are a nicety; a trace with odd properties still imports.
    }
  } else if (key == "host_name" || key == "hostname") {
    if (json.size() >= 2 && json.front() == '"') meta.host = json.substr(1, json.size() - 2);
  } else if (key == "traceName") {
    if (json.size() >= 2 && json.front() == '"') {
      meta.extra["kineto.trace_name"] = json.substr(1, json.size() - 2);
    }
  } else if (key == "schemaVersion") {
    meta.extra["kineto.schema_version"] = json;
  }
}

ThreadIndex KinetoBuilder::cpuThread(const TraceEvent& e) {
  if (!cpuPid_ && !e.pidIsText) {
    cpuPid_ = e.pid;
    rank_.meta().pid = e.pid;
  }
  if (!e.tidIsText) return rank_.thread(static_cast<uint64_t>(e.tid));
  // A thread named by a string: a stable made-up id, named by that string.
  const uint64_t tid = stableHash(e.tidText) & 0x7fffffff;
  const ThreadIndex t = rank_.thread(tid);
  if (rank_.trace().threads[t].name == 0) rank_.nameThread(tid, e.tidText);
  return t;
}

void KinetoBuilder::event(const TraceEvent& e, TraceEventParser& parser) {
  ++events_;
  switch (e.ph) {
    case 'X':
      complete(e, parser);
      break;
    case 'B':
      if (e.ts)
        open_[{e.pid, e.tid}].push_back({std::string(e.name), std::string(e.catName), *e.ts});
      break;
    case 'E': {
      auto it = open_.find({e.pid, e.tid});
      if (it == open_.end() || it->second.empty() || !e.ts) break;
      Open o = std::move(it->second.back());
      it->second.pop_back();
      TraceEvent x = e;
      x.ph = 'X';
      x.name = o.name;
      x.catName = o.cat;
      x.cat = categoryOf(o.cat);
      x.dur = *e.ts - o.start;
      x.ts = o.start;
      complete(x, parser);
      break;
    }
    case 'i':
    case 'I':
      // Kineto closes a trace with this global instant: when its collection ended.
      if (e.ts && e.name == "Record Window End") windowEnd_ = *e.ts;
      if (e.name == "[memory]") {
        memoryEvent(e, parser);
        break;
      }
      if (e.ts && !e.pidIsText && e.cat != Category::Flow) {
        rank_.addMark(*e.ts, cpuThread(e), rank_.intern(e.catName), rank_.intern(e.name));
      }
      break;
    case 'M':
      metadata(e, parser);
      break;
    case 's':
    case 't':
    case 'f':
      break;  // flow arrows repeat what correlation ids already say
    default:
      skip(std::string("'") + e.ph + "' events");
  }
}

void KinetoBuilder::complete(const TraceEvent& e, TraceEventParser& parser) {
  if (e.pidIsText) return;  // Kineto's own spans ("Spans", "Traces"): not the job's work
  if (!e.ts) {
    skip("events without a time");
    return;
  }
  const TimeNs start = *e.ts;
  const TimeNs end = start + std::max<TimeNs>(0, e.dur.value_or(0));
  TraceEventArgs a;
  switch (e.cat) {
    case Category::CpuOp:
      if (e.name == kRecordParamComms) {
        if (!parser.parseArgs(e, a)) ++malformed_;
        CommRecord r = collectiveArgs(a, file_, groups_);
        r.start = start;
        r.end = end;
        r.thread = cpuThread(e);
        r.externalId = static_cast<uint64_t>(a.externalId.value_or(0));
        comms_.push_back(std::move(r));
        rank_.addRange(start, end, cpuThread(e), domainNccl_, rank_.intern(e.name));
        return;
      }
      rank_.addRange(start, end, cpuThread(e), domainCpuOp_, rank_.intern(e.name));
      return;
    case Category::UserAnnotation: {
      const ThreadIndex thread = cpuThread(e);
      if (auto title = parseNcclTitle(e.name)) {
        if (!parser.parseArgs(e, a)) ++malformed_;
        titles_.push_back(
            {start, end, thread, static_cast<uint64_t>(a.externalId.value_or(0)), *title});
        rank_.addRange(start, end, thread, domainNccl_, rank_.intern(e.name));
        return;
      }
      const StringId domain = e.name.starts_with("nccl:") ? domainNccl_ : domainDefault_;
      rank_.addRange(start, end, thread, domain, rank_.intern(e.name));
      return;
    }
    case Category::PythonFunction:
      rank_.addRange(start, end, cpuThread(e), domainPython_, rank_.intern(e.name));
      return;
    case Category::CudaRuntime:
    case Category::CudaDriver:
      if (!parser.parseArgs(e, a)) ++malformed_;
      rank_.addApiCall(start, end, cpuThread(e), rank_.intern(e.name), u32(a.correlation));
      return;
    case Category::Kernel:
    case Category::Memcpy:
    case Category::Memset:
    case Category::CudaSync:
      if (!parser.parseArgs(e, a)) ++malformed_;
      gpuActivity(e, a, start, end);
      return;
    case Category::GpuUserAnnotation:
      // The ranges' device spans; the analysis takes ops' device spans from their kernels.
      skip(
          "gpu_user_annotation (device spans of user_annotation ranges; ops take theirs from "
          "kernels)");
      return;
    case Category::Flow:
      return;
    case Category::Other:
      skip(e.catName.empty() ? "events without a category" : std::string(e.catName));
      return;
  }
}

void KinetoBuilder::gpuActivity(const TraceEvent& e, const TraceEventArgs& a, TimeNs start,
                                TimeNs end) {
  // A GPU event's device is args.device, else its pid.
  const auto device = a.device ? fieldInRange<uint32_t>(file_, "args.device", *a.device)
                               : fieldInRange<uint32_t>(file_, "pid of a GPU event", e.pid);
  const bool contextWide = e.cat == Category::CudaSync && e.name.starts_with("Context Sync");
  const StreamIndex stream =
      contextWide ? kNoStream
                  : rank_.stream(device, static_cast<uint64_t>(a.stream.value_or(e.tid)));
  gpuPids_.insert(e.pid);
  const uint32_t corr = u32(a.correlation);
  const auto bytes = fieldInRange<uint64_t>(file_, "args.bytes", a.bytes.value_or(0), 0, INT64_MAX);
  switch (e.cat) {
    case Category::Kernel: {
      rank_.addKernel(start, end, stream, rank_.intern(e.name), corr);
      if (e.name.starts_with("nccl") || e.name.find("ncclDevKernel") != std::string_view::npos ||
          e.name.find("ncclKernel") != std::string_view::npos) {
        NcclKernelRef k;
        k.externalId = static_cast<uint64_t>(a.externalId.value_or(0));
        k.correlation = corr;
        k.start = start;
        k.stream = stream;
        k.pointToPointName = pointToPointKernel(e.name);
        if (!a.collective.empty()) k.args = collectiveArgs(a, file_, groups_);
        ncclKernels_.push_back(std::move(k));
      }
      break;
    }
    case Category::Memcpy:
      rank_.addMemcpy(start, end, stream, corr, bytes, memcpyKindOf(e.name));
      break;
    case Category::Memset:
      rank_.addMemset(start, end, stream, corr, bytes);
      break;
    default:
      rank_.addSync(start, end, stream, corr, syncKindOf(e.name));
      break;
  }
  if (!rank_.hasDevice(device)) {
    auto it = deviceNames_.find(device);
    rank_.addDevice(device, it == deviceNames_.end() ? std::string_view() : it->second);
  }
}

void KinetoBuilder::memoryEvent(const TraceEvent& e, TraceEventParser& parser) {
  // c10::DeviceType: 0 CPU, 1 CUDA. Host allocations say nothing about the device's memory.
  constexpr int64_t kCuda = 1;
  TraceEventArgs a;
  if (!e.ts || !parser.parseArgs(e, a)) {
    ++malformed_;
    return;
  }
  if (a.deviceType != kCuda) {
    skip("[memory] events of host memory");
    return;
  }
  if (!a.deviceId || *a.deviceId < 0 || *a.deviceId > UINT32_MAX ||
      (!a.totalAllocated && !a.totalReserved)) {
    ++malformed_;
    return;
  }
  const auto device = static_cast<uint32_t>(*a.deviceId);
  auto bytes = [](std::optional<int64_t> v) { return v && *v >= 0 ? *v : kBytesUnknown; };
  rank_.addMemoryUsage(*e.ts, device, bytes(a.totalAllocated), bytes(a.totalReserved));
  if (!rank_.hasDevice(device)) {
    auto it = deviceNames_.find(device);
    rank_.addDevice(device, it == deviceNames_.end() ? std::string_view() : it->second);
  }
}

void KinetoBuilder::metadata(const TraceEvent& e, TraceEventParser& parser) {
  if (e.pidIsText) return;
  TraceEventArgs a;
  if (!parser.parseArgs(e, a)) ++malformed_;
  if (e.name == "thread_name" && !a.name.empty()) {
    const std::string_view name = trimmed(a.name);
    if (gpuPids_.count(e.pid) ||
        (name.starts_with("stream ") && e.pid >= 0 && e.pid <= UINT32_MAX)) {
      rank_.nameStream(static_cast<uint32_t>(e.pid), static_cast<uint64_t>(e.tid), name);
    } else if (!e.tidIsText) {
      rank_.nameThread(static_cast<uint64_t>(e.tid), threadName(name));
    }
  } else if (e.name == "process_name" && !a.name.empty() && a.labels.empty()) {
    if (!gpuPids_.count(e.pid) && !rank_.meta().extra.count("kineto.process_name")) {
      rank_.meta().extra["kineto.process_name"] = std::string(a.name);
    }
  }
}

ImportedFile KinetoBuilder::finish() {
  if (events_ == 0) throw TraceError(file_, "a trace with no events (its traceEvents is empty)");
  RankTrace& t = rank_.trace();
  for (const NcclKernelRef& l : unrecordedCommLaunches(t, comms_)) ncclKernels_.push_back(l);
  buildNcclCalls(t, std::move(comms_), std::move(titles_), ncclKernels_);
  // The capacity of the devices the rank used (deviceProperties lists every device of the host).
  for (Device& d : t.devices) {
    if (auto it = deviceMemory_.find(d.id); it != deviceMemory_.end()) d.memoryBytes = it->second;
  }
  RankMeta& meta = t.meta;
  meta.cudaCapture = t.kernels->size() + t.memcpys->size() + t.memsets->size() > 0;
  if (!meta.cudaCapture) meta.cudaNote = "the trace has no GPU activity";
  // Older traces hold absolute epoch microseconds and no base; newer ones are relative to it.
  const TimeNs offset = sawBase_ ? base_ : 0;
  ImportedFile out;
  out.file = file_;
  out.format = "kineto";
  out.skipped = std::move(skipped_);
  if (malformed_ > 0) out.skipped["events with malformed args"] += malformed_;
  RankTrace done = rank_.finish(offset);
  done.file = file_;
  done.meta.startNs = traceSpan(done).start;
  if (windowEnd_) done.meta.aliveNs = *windowEnd_ + offset;
  out.ranks.push_back(std::move(done));
  return out;
}

}  // namespace bubblescope::traces::import
