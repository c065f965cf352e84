#include "agent/cupti/activity_decoder.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace bubblescope::agent {
namespace {

using traces::ApiDomain;

// A few external ids may be pushed per call (an NCCL call inside an NVTX range); more than this
// waiting for an API record means CUPTI stopped pairing them.
constexpr size_t kMaxPendingExternal = 16;

traces::ExternalKind externalKindOf(CUpti_ExternalCorrelationKind kind) {
  switch (kind) {
    case CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0:
      return traces::ExternalKind::NcclCall;
    case CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1:
      return traces::ExternalKind::NvtxRange;
    default:
      return traces::ExternalKind::Other;
  }
}

const char* overheadName(CUpti_ActivityOverheadKind kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_OVERHEAD_DRIVER_COMPILER:
      return "driver_compiler";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH:
      return "buffer_flush";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_INSTRUMENTATION:
      return "instrumentation";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_RESOURCE:
      return "resource";
    default:
      return "other";
  }
}

}  // namespace

std::string formatUuid(const CUuuid& uuid) {
  const auto* b = reinterpret_cast<const unsigned char*>(uuid.bytes);
  char s[64];
  std::snprintf(s, sizeof s,
                "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
                b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
                b[14], b[15]);
  return s;
}

std::string demangleKernelName(const char* name) {
  if (name == nullptr) return "";
  int status = 0;
  char* out = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  if (status != 0 || out == nullptr) return name;  // a C kernel ("ncclDevKernel_...")
  std::string s = out;
  std::free(out);
  return s;
}

void ActivityDecoder::beginFile() {
  kernelNames_.clear();
  apiNames_.clear();
  streams_.clear();
  devices_.clear();
  pendingExternal_.clear();
}

bool ActivityDecoder::admitted(uint64_t start, uint64_t end) {
  if (start == 0 || end == 0) {
    ++counts_.incomplete;
    return false;
  }
  const int64_t at = ns(start);
  for (const TimeSpan& w : windows_) {
    if (at >= w.start && at <= w.end) return true;
  }
  ++counts_.outsideWindow;
  return false;
}

void ActivityDecoder::noteStream(uint32_t device, uint32_t stream, traces::TraceWriter& out) {
  if (streams_.insert((uint64_t{device} << 32) | stream).second) out.addStream(device, stream, "");
}

uint32_t ActivityDecoder::deviceOfContext(uint32_t context) const {
  auto it = contextDevice_.find(context);
  return it != contextDevice_.end() ? it->second : 0;
}

traces::StringId ActivityDecoder::kernelName(const char* name, traces::TraceWriter& out) {
  // CUPTI shares one name string among all records of a kernel: demangle each kernel once.
  auto [it, added] = kernelNames_.try_emplace(name, 0);
  if (added) it->second = out.intern(demangleKernelName(name));
  return it->second;
}

traces::StringId ActivityDecoder::apiName(ApiDomain domain, uint32_t cbid,
                                          traces::TraceWriter& out) {
  const uint64_t key = (uint64_t{static_cast<uint8_t>(domain)} << 32) | cbid;
  auto [it, added] = apiNames_.try_emplace(key, 0);
  if (added) {
    std::string_view n = names_ != nullptr ? names_->name(domain, cbid) : std::string_view();
    it->second = n.empty()
                     ? out.intern((domain == ApiDomain::Driver ? "driver call " : "runtime call ") +
                                  std::to_string(cbid))
                     : out.intern(n);
  }
  return it->second;
}

void ActivityDecoder::onKernel(const CUpti_ActivityKernel10& k, traces::TraceWriter& out) {
  if (!admitted(k.start, k.end)) return;
  traces::KernelRecord r;
  r.start = ns(k.start);
  r.end = ns(k.end);
  r.device = k.deviceId;
  r.stream = k.streamId;
  r.correlation = k.correlationId;
  r.name = kernelName(k.name, out);
  r.grid[0] = static_cast<uint32_t>(k.gridX);
  r.grid[1] = static_cast<uint32_t>(k.gridY);
  r.grid[2] = static_cast<uint32_t>(k.gridZ);
  r.block[0] = static_cast<uint32_t>(k.blockX);
  r.block[1] = static_cast<uint32_t>(k.blockY);
  r.block[2] = static_cast<uint32_t>(k.blockZ);
  r.registers = k.registersPerThread;
  r.sharedStatic = static_cast<uint32_t>(k.staticSharedMemory);
  r.sharedDynamic = static_cast<uint32_t>(k.dynamicSharedMemory);
  noteStream(k.deviceId, k.streamId, out);
  out.add(r);
  ++counts_.written;
}

template <class Copy>
void ActivityDecoder::onCopy(const Copy& m, traces::TraceWriter& out) {
  if (!admitted(m.start, m.end)) return;
  traces::MemcpyRecord r;
  r.start = ns(m.start);
  r.end = ns(m.end);
  r.device = m.deviceId;
  r.stream = m.streamId;
  r.correlation = m.correlationId;
  r.bytes = m.bytes;
  r.copyKind = static_cast<traces::MemcpyKind>(m.copyKind);
  r.srcKind = m.srcKind;
  r.dstKind = m.dstKind;
  noteStream(m.deviceId, m.streamId, out);
  out.add(r);
  ++counts_.written;
}

void ActivityDecoder::onMemset(const CUpti_ActivityMemset4& m, traces::TraceWriter& out) {
  if (!admitted(m.start, m.end)) return;
  traces::MemsetRecord r;
  r.start = ns(m.start);
  r.end = ns(m.end);
  r.device = m.deviceId;
  r.stream = m.streamId;
  r.correlation = m.correlationId;
  r.bytes = m.bytes;
  r.value = m.value;
  noteStream(m.deviceId, m.streamId, out);
  out.add(r);
  ++counts_.written;
}

void ActivityDecoder::onSync(const CUpti_ActivitySynchronization2& s, traces::TraceWriter& out) {
  if (!admitted(s.start, s.end)) return;
  traces::SyncRecord r;
  r.start = ns(s.start);
  r.end = ns(s.end);
  r.device = deviceOfContext(s.contextId);
  r.stream = s.streamId;  // CUPTI_INVALID_STREAM_ID (4294967295) for a context-wide sync
  r.correlation = s.correlationId;
  r.syncKind = static_cast<traces::SyncKind>(s.type);
  out.add(r);
  ++counts_.written;
}

void ActivityDecoder::onApi(const CUpti_ActivityAPI& a, ApiDomain domain,
                            traces::TraceWriter& out) {
  auto dropPending = [&] {
    // The external ids pushed for this call go with it.
    std::erase_if(pendingExternal_, [&](const CUpti_ActivityExternalCorrelation& c) {
      return c.correlationId == a.correlationId;
    });
  };
  if (names_ != nullptr && !names_->keep(domain, a.cbid)) {
    ++counts_.filtered;
    dropPending();
    return;
  }
  if (!admitted(a.start, a.end)) {
    dropPending();
    return;
  }
  traces::ApiCallRecord r;
  r.start = ns(a.start);
  r.end = ns(a.end);
  r.tid = a.threadId;
  r.name = apiName(domain, a.cbid, out);
  r.correlation = a.correlationId;
  r.cbid = a.cbid;
  r.domain = domain;
  r.returnValue = static_cast<int32_t>(a.returnValue);
  out.add(r);
  ++counts_.written;
  for (auto it = pendingExternal_.begin(); it != pendingExternal_.end();) {
    if (it->correlationId == a.correlationId) {
      out.add(traces::CorrelationRecord{it->correlationId, externalKindOf(it->externalKind),
                                        it->externalId});
      it = pendingExternal_.erase(it);
    } else {
      ++it;
    }
  }
}

void ActivityDecoder::onExternalCorrelation(const CUpti_ActivityExternalCorrelation& c) {
  if (pendingExternal_.size() >= kMaxPendingExternal) {
    pendingExternal_.erase(pendingExternal_.begin());
  }
  pendingExternal_.push_back(c);
}

void ActivityDecoder::onDevice(const CUpti_ActivityDevice5& d, traces::TraceWriter& out) {
  if (!devices_.insert(d.id).second) return;
  out.addDevice(d.id, d.name != nullptr ? d.name : "", formatUuid(d.uuid), d.globalMemorySize);
}

void ActivityDecoder::onMemory(const CUpti_ActivityMemory4& m, traces::TraceWriter& out) {
  // Device memory only (cudaMalloc and module globals); pinned host memory and managed memory
  // are not the device's to give a fill job.
  if (m.memoryKind != CUPTI_ACTIVITY_MEMORY_KIND_DEVICE &&
      m.memoryKind != CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC) {
    ++counts_.otherKinds;
    return;
  }
  int64_t& sum = reserved_[m.deviceId];
  const auto bytes = static_cast<int64_t>(std::min<uint64_t>(m.bytes, INT64_MAX));
  if (m.memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION) {
    sum += bytes;
  } else if (m.memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE) {
    sum = std::max<int64_t>(0, sum - bytes);
  } else {
    return;
  }
  // Counted whatever the windows say; written only inside one.
  if (!admitted(m.timestamp, m.timestamp)) return;
  out.add(traces::MemoryUsageRecord{ns(m.timestamp), m.deviceId, traces::kBytesUnknown, sum});
  ++counts_.written;
}

void ActivityDecoder::onOverhead(const CUpti_ActivityOverhead3& o) {
  auto& [count, total] = overhead_[overheadName(o.overheadKind)];
  ++count;
  if (o.end > o.start) total += static_cast<int64_t>(o.end - o.start);
}

void ActivityDecoder::decode(const CUpti_Activity& record, traces::TraceWriter& out) {
  ++counts_.records;
  switch (record.kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      onKernel(reinterpret_cast<const CUpti_ActivityKernel10&>(record), out);
      break;
    case CUPTI_ACTIVITY_KIND_MEMCPY:
      onCopy(reinterpret_cast<const CUpti_ActivityMemcpy6&>(record), out);
      break;
    case CUPTI_ACTIVITY_KIND_MEMCPY2:
      onCopy(reinterpret_cast<const CUpti_ActivityMemcpyPtoP4&>(record), out);
      break;
    case CUPTI_ACTIVITY_KIND_MEMSET:
      onMemset(reinterpret_cast<const CUpti_ActivityMemset4&>(record), out);
      break;
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
      onSync(reinterpret_cast<const CUpti_ActivitySynchronization2&>(record), out);
      break;
    case CUPTI_ACTIVITY_KIND_RUNTIME:
      onApi(reinterpret_cast<const CUpti_ActivityAPI&>(record), ApiDomain::Runtime, out);
      break;
    case CUPTI_ACTIVITY_KIND_DRIVER:
      onApi(reinterpret_cast<const CUpti_ActivityAPI&>(record), ApiDomain::Driver, out);
      break;
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
      onExternalCorrelation(reinterpret_cast<const CUpti_ActivityExternalCorrelation&>(record));
      break;
    case CUPTI_ACTIVITY_KIND_DEVICE:
      onDevice(reinterpret_cast<const CUpti_ActivityDevice5&>(record), out);
      break;
    case CUPTI_ACTIVITY_KIND_MEMORY2:
      onMemory(reinterpret_cast<const CUpti_ActivityMemory4&>(record), out);
      break;
    case CUPTI_ACTIVITY_KIND_CONTEXT: {
      const auto& c = reinterpret_cast<const CUpti_ActivityContext3&>(record);
      contextDevice_[c.contextId] = c.deviceId;
      break;
    }
    case CUPTI_ACTIVITY_KIND_OVERHEAD:
      onOverhead(reinterpret_cast<const CUpti_ActivityOverhead3&>(record));
      break;
    default:
      ++counts_.otherKinds;
      break;
  }
}

}  // namespace bubblescope::agent
