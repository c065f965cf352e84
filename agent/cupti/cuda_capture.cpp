#include "agent/cupti/cuda_capture.h"

#include <pthread.h>

#include <cstdlib>
#include <mutex>
#include <vector>

#include "agent/core/clock.h"
#include "agent/core/log.h"
#include "agent/core/producer.h"
#include "agent/core/record_sink.h"
#include "agent/core/recorder.h"
#include "agent/core/thread_state.h"
#include "agent/cupti/activity_decoder.h"
#include "agent/cupti/api_names.h"
#include "agent/cupti/buffer_pool.h"
#include "agent/cupti/cupti_api.h"

namespace bubblescope::agent {

namespace detail {
std::atomic<bool> g_cudaTracing{false};
}  // namespace detail

namespace {

// Host buffers: 4 MiB each (CUPTI recommends 1-10 MB; Kineto uses 4 MB), 16 of them (64 MiB
// of address space, Kineto's cap is 128 MB), the first 4 faulted in at start.
constexpr size_t kBufferBytes = size_t{4} << 20;
constexpr uint32_t kDefaultBuffers = 16;
constexpr uint32_t kResidentBuffers = 4;
// CUPTI before API version 27 (CUDA 12.9) may crash when a buffer request is refused
// (kineto#1362): with those, a request beyond the pool gets a heap buffer instead.
constexpr uint32_t kRefusalSafeVersion = 27;
constexpr int64_t kFlushEveryNs = 500'000'000;      // completed-record flush from the writer
constexpr int64_t kAnchorEveryNs = 10'000'000'000;  // CUPTI clock anchors
// Below this, CUPTI's clock is CLOCK_REALTIME read a little apart: no conversion.
constexpr int64_t kSameClockNs = 100'000;

struct BufferPayload {
  uint64_t buffer;     // address
  uint64_t validSize;  // bytes of records
};

// Everything here is created at start-up and never destroyed (CUPTI may call back during exit).
struct Capture {
  std::mutex mutex;  // state changes (cold)
  bool requested = false;
  bool started = false;
  CudaCaptureState state;
  std::atomic<uint64_t> stateVersion{1};

  const CuptiApi* api = nullptr;
  CUpti_SubscriberHandle subscriber = nullptr;
  BufferPool pool;
  ApiNames names;
  ActivityDecoder decoder{&names};
  std::atomic<bool> finished{false};  // after the exit flush: CUPTI is not called again
  // Activity kinds are on only while a window is open or armed (and until the writer has flushed
  // what it held): a dormant process pays CUPTI nothing per launch. kindsMutex orders switches.
  std::mutex kindsMutex;
  std::atomic<bool> kindsReady{false};  // start() has checked that kernels can be traced
  bool kindsOn = false;
  std::atomic<int64_t> offsetNs{0};
  std::string kindsOff;  // kinds CUPTI would not enable
  std::atomic<uint64_t> refused{0}, overflowBuffers{0}, cuptiDropped{0};

  RecordType bufferType = 0;
  // Writer thread only.
  uint64_t stateWritten = 0;
  uint64_t windowsVersion = UINT64_MAX;
  bool windowsForMemory = false;  // the windows admitted are memory windows (watch)
  bool windowOpenAtFlush = false;
  int64_t lastFlushNs = 0;
  int64_t lastAnchorNs = 0;
};

// Set on the writer thread while it calls cuptiActivityFlushAll: completed buffers are decoded
// at once instead of going through a ring.
thread_local RecordSink* t_directSink = nullptr;

Capture& capture() {
  static auto* c = new Capture;
  return *c;
}

// ---- State ----

void setState(bool active, std::string note) {
  Capture& c = capture();
  {
    std::lock_guard lock(c.mutex);
    c.state.active = active;
    c.state.note = std::move(note);
  }
  c.stateVersion.fetch_add(1, std::memory_order_release);
}

void turnOff(std::string reason) {
  warnOnce(Problem::CudaCaptureOff, "CUDA capture is off: %s; NVTX and NCCL capture go on",
           reason.c_str());
  setState(false, std::move(reason));
}

// ---- Drops ----

// Adds to the calling thread's CUPTI drop counter (each thread writes only its own).
void countDrops(uint64_t n) {
  if (n == 0) return;
  capture().cuptiDropped.fetch_add(n, std::memory_order_relaxed);
  if (ThreadState* ts = currentThreadState()) {
    auto& d = ts->dropped[static_cast<int>(Source::Cupti)];
    d.store(d.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }
}

uint64_t countRecords(const CuptiApi& api, uint8_t* buffer, size_t validSize) {
  uint64_t n = 0;
  CUpti_Activity* record = nullptr;
  while (api.getNextRecord(buffer, validSize, &record) == CUPTI_SUCCESS) ++n;
  return n;
}

// ---- Decoding (writer thread) ----

// The windows whose records the trace being written takes: a memory window's trace takes only
// memory windows, a file only file windows (records of one never land in the other).
void refreshWindows(Capture& c, const RecordSink& sink) {
  Recorder& recorder = Recorder::instance();
  const uint64_t v = recorder.version();
  const bool memory = sink.trace().inMemory();
  if (v == c.windowsVersion && memory == c.windowsForMemory) return;
  c.windowsVersion = v;
  c.windowsForMemory = memory;
  std::vector<TimeSpan> spans;
  for (const WindowRecord& w : recorder.windows()) {
    if (w.memory != memory) continue;
    spans.push_back(TimeSpan{w.startNs, w.endNs != 0 ? w.endNs : INT64_MAX});
  }
  c.decoder.setWindows(std::move(spans));
}

void decodeBuffer(Capture& c, RecordSink& sink, uint8_t* buffer, size_t validSize) {
  refreshWindows(c, sink);
  c.decoder.setClockOffset(c.offsetNs.load(std::memory_order_relaxed));
  CUpti_Activity* record = nullptr;
  while (c.api->getNextRecord(buffer, validSize, &record) == CUPTI_SUCCESS) {
    c.decoder.decode(*record, sink.trace());
  }
}

void releaseBuffer(Capture& c, uint8_t* buffer) {
  if (c.pool.owns(buffer)) {
    c.pool.give(buffer);
  } else {
    std::free(buffer);  // an overflow buffer (old CUPTI)
  }
}

void decodeBufferRecord(RecordSink& sink, const RecordView& view) {
  Capture& c = capture();
  const auto& p = view.as<BufferPayload>();
  auto* buffer = reinterpret_cast<uint8_t*>(p.buffer);
  try {
    decodeBuffer(c, sink, buffer, p.validSize);
  } catch (...) {
    releaseBuffer(c, buffer);
    throw;  // the writer reports a failed write once and stops capture
  }
  releaseBuffer(c, buffer);
}

// ---- CUPTI callbacks (any thread) ----

void CUPTIAPI requestBuffer(uint8_t** buffer, size_t* size, size_t* maxNumRecords) {
  Capture& c = capture();
  *maxNumRecords = 0;  // as many as fit
  uint8_t* b = c.pool.take();
  if (b == nullptr) {
    c.refused.fetch_add(1, std::memory_order_relaxed);
    if (c.api->version < kRefusalSafeVersion) {
      b = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
      if (b != nullptr) c.overflowBuffers.fetch_add(1, std::memory_order_relaxed);
    }
  }
  *buffer = b;
  *size = b != nullptr ? (c.pool.owns(b) ? c.pool.bufferBytes() : kBufferBytes) : 0;
}

void CUPTIAPI completeBuffer(CUcontext context, uint32_t streamId, uint8_t* buffer, size_t,
                             size_t validSize) {
  Capture& c = capture();
  size_t dropped = 0;
  if (c.api->getNumDroppedRecords != nullptr &&
      c.api->getNumDroppedRecords(context, streamId, &dropped) == CUPTI_SUCCESS) {
    countDrops(dropped);
  }
  if (buffer == nullptr) return;
  Recorder& recorder = Recorder::instance();
  // Nothing is kept while no window has ever opened (dormant) or capture is off for good: the
  // buffer goes straight back.
  if (validSize == 0 || recorder.disabled() || (!recordingNow() && recorder.windows().empty())) {
    releaseBuffer(c, buffer);
    return;
  }
  if (RecordSink* sink = t_directSink) {
    // The writer is flushing CUPTI itself (periodically, or before it closes the file).
    try {
      decodeBuffer(c, *sink, buffer, validSize);
    } catch (...) {
      // A failed write is reported by the writer at its next commit.
    }
    releaseBuffer(c, buffer);
    return;
  }
  // Hand the buffer to the writer through this thread's ring; it decodes and returns it.
  const BufferPayload p{reinterpret_cast<uint64_t>(buffer), validSize};
  if (!append(Source::Cupti, c.bufferType, p)) {
    const uint64_t n = countRecords(*c.api, buffer, validSize);
    countDrops(n > 0 ? n - 1 : 0);  // the failed append counted one already
    releaseBuffer(c, buffer);
  }
}

// ---- Clock ----

// CLOCK_REALTIME, CLOCK_MONOTONIC and the CUPTI clock read together (the closest of a few
// tries), and the offset that turns CUPTI times into CLOCK_REALTIME.
traces::ClockAnchor readCuptiAnchor(const CuptiApi& api, int64_t* offsetNs) {
  traces::ClockAnchor best;
  int64_t bestGap = INT64_MAX;
  for (int i = 0; i < 5; ++i) {
    uint64_t cupti = 0;
    const int64_t before = realtimeNs();
    const int64_t mono = monotonicNs();
    if (api.getTimestamp(&cupti) != CUPTI_SUCCESS) break;
    const int64_t after = realtimeNs();
    if (after - before < bestGap) {
      bestGap = after - before;
      best.realtimeNs = before + (after - before) / 2;
      best.monotonicNs = mono;
      best.cuptiNs = static_cast<int64_t>(cupti);
    }
  }
  if (bestGap == INT64_MAX) {  // no CUPTI timestamp: the clocks alone
    best.realtimeNs = realtimeNs();
    best.monotonicNs = monotonicNs();
    *offsetNs = 0;
    return best;
  }
  const int64_t offset = best.realtimeNs - best.cuptiNs;
  *offsetNs = offset > -kSameClockNs && offset < kSameClockNs ? 0 : offset;
  return best;
}

// ---- Activity kinds ----

struct OptionalKind {
  CUpti_ActivityKind kind;
  const char* name;
};
constexpr OptionalKind kOptionalKinds[] = {
    {CUPTI_ACTIVITY_KIND_DEVICE, "DEVICE"},
    {CUPTI_ACTIVITY_KIND_CONTEXT, "CONTEXT"},
    {CUPTI_ACTIVITY_KIND_MEMCPY, "MEMCPY"},
    {CUPTI_ACTIVITY_KIND_MEMCPY2, "MEMCPY2"},
    {CUPTI_ACTIVITY_KIND_MEMSET, "MEMSET"},
    {CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, "SYNCHRONIZATION"},
    {CUPTI_ACTIVITY_KIND_RUNTIME, "RUNTIME"},
    {CUPTI_ACTIVITY_KIND_DRIVER, "DRIVER"},
    {CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, "EXTERNAL_CORRELATION"},
    {CUPTI_ACTIVITY_KIND_OVERHEAD, "OVERHEAD"},
    // Device memory allocations and releases: what the job holds, for the bubble inventory.
    {CUPTI_ACTIVITY_KIND_MEMORY2, "MEMORY2"},
};

// Kernels first: the one kind that must go on. Its result is CUPTI's verdict on this process.
// `off` (if given) gets the optional kinds CUPTI would not enable.
CUptiResult enableKinds(Capture& c, std::string* off = nullptr) {
  if (CUptiResult r = c.api->enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL); r != CUPTI_SUCCESS) {
    return r;
  }
  for (const auto& k : kOptionalKinds) {
    if (c.api->enable(k.kind) != CUPTI_SUCCESS && off != nullptr) {
      *off += (off->empty() ? "" : ",") + std::string(k.name);
    }
  }
  // Noisy calls are not even traced where CUPTI can say so per call (12.5+); the decoder
  // filters them anyway.
  if (c.api->enableRuntimeApi != nullptr) {
    for (uint32_t cbid : c.names.unwanted(traces::ApiDomain::Runtime)) {
      c.api->enableRuntimeApi(cbid, 0);
    }
  }
  if (c.api->enableDriverApi != nullptr) {
    for (uint32_t cbid : c.names.unwanted(traces::ApiDomain::Driver)) {
      c.api->enableDriverApi(cbid, 0);
    }
  }
  return CUPTI_SUCCESS;
}

void disableKinds(Capture& c) {
  if (c.api->disable == nullptr) return;  // an old CUPTI: the kinds stay on, as they were
  c.api->disable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  for (const auto& k : kOptionalKinds) {
    // Device memory stays traced while dormant: the reserve is a running sum, and an allocation
    // missed between windows (the weights, made once) would be missing from every later one. It
    // costs a record per cudaMalloc or cudaFree, which a caching allocator makes rarely.
    if (k.kind == CUPTI_ACTIVITY_KIND_MEMORY2) continue;
    c.api->disable(k.kind);
  }
}

// Kinds on while a window is open or armed (switched on when a window is asked for, so that
// CUPTI's start-up cost falls before the first captured step, as in Kineto's warm-up), off
// otherwise. Called by the recorder's hook on the thread that asked for the window, and by the
// writer after it flushed a closed window; the state is read here, under the mutex, so
// whichever call comes last leaves the right one.
void matchKindsToCapture(Capture& c) {
  if (!c.kindsReady.load(std::memory_order_acquire)) return;
  std::lock_guard lock(c.kindsMutex);
  if (c.finished.load(std::memory_order_acquire)) return;
  const bool wanted = Recorder::instance().captureWanted();
  if (wanted == c.kindsOn) return;
  if (wanted) {
    c.kindsOn = enableKinds(c) == CUPTI_SUCCESS;
  } else {
    disableKinds(c);
    c.kindsOn = c.api->disable == nullptr;
  }
}

bool kindsOn(Capture& c) {
  std::lock_guard lock(c.kindsMutex);
  return c.kindsOn;
}

void onCaptureWanted() {
  matchKindsToCapture(capture());
}

// ---- Writer hooks ----

void writeState(Capture& c, RecordSink& sink) {
  const uint64_t v = c.stateVersion.load(std::memory_order_acquire);
  if (v == c.stateWritten) return;
  c.stateWritten = v;
  const CudaCaptureState s = cudaCaptureState();
  sink.trace().setMeta("cuda_capture", s.active ? "1" : "0");
  sink.trace().setMeta("cuda_note", s.note);
  if (c.api != nullptr) {
    sink.trace().setMeta("extra.cupti_library", c.api->path);
    sink.trace().setMeta("extra.cupti_version", std::to_string(c.api->version));
  }
  std::string kindsOff;
  {
    std::lock_guard lock(c.mutex);
    kindsOff = c.kindsOff;
  }
  if (!kindsOff.empty()) sink.trace().setMeta("extra.cupti_kinds_off", kindsOff);
}

void writeCounts(Capture& c, RecordSink& sink) {
  auto& t = sink.trace();
  const ActivityCounts& n = c.decoder.counts();
  t.setMeta("extra.cupti_records", std::to_string(n.records));
  t.setMeta("extra.cupti_outside_windows", std::to_string(n.outsideWindow));
  t.setMeta("extra.cupti_incomplete", std::to_string(n.incomplete));
  t.setMeta("extra.cupti_filtered_calls", std::to_string(n.filtered));
  t.setMeta("extra.cupti_dropped", std::to_string(c.cuptiDropped.load()));
  t.setMeta("extra.cupti_buffers_refused", std::to_string(c.refused.load()));
  if (c.overflowBuffers.load() != 0) {
    t.setMeta("extra.cupti_overflow_buffers", std::to_string(c.overflowBuffers.load()));
  }
  for (const auto& [kind, v] : c.decoder.overhead()) {
    t.setMeta("extra.cupti_overhead." + kind,
              std::to_string(v.first) + " records, " + std::to_string(v.second) + " ns");
  }
}

void flushCupti(Capture& c, RecordSink& sink, uint32_t flags) {
  if (c.finished.load(std::memory_order_acquire)) return;
  t_directSink = &sink;
  c.api->flushAll(flags);
  t_directSink = nullptr;
}

void onFileOpened(RecordSink& sink) {
  Capture& c = capture();
  c.decoder.beginFile();
  c.stateWritten = 0;
  c.windowsVersion = UINT64_MAX;
  c.lastAnchorNs = 0;
  writeState(c, sink);
}

void onCycle(RecordSink& sink) {
  Capture& c = capture();
  writeState(c, sink);
  if (!cudaTracing() || c.finished.load(std::memory_order_acquire)) return;
  const int64_t now = monotonicNs();
  const uint64_t windowsBefore = c.windowsVersion;
  refreshWindows(c, sink);
  if (c.windowsVersion != windowsBefore || now - c.lastAnchorNs >= kAnchorEveryNs) {
    int64_t offset = 0;
    sink.trace().addClockAnchor(readCuptiAnchor(*c.api, &offset));
    c.offsetNs.store(offset, std::memory_order_relaxed);
    c.lastAnchorNs = now;
  }
  // A window just closed (or opened and closed between two cycles): everything CUPTI holds
  // of it, finished or not, now; then the kinds go off until the next window.
  const bool open = recordingNow();
  if (!open && (c.windowOpenAtFlush || (kindsOn(c) && !Recorder::instance().captureWanted()))) {
    flushCupti(c, sink, CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    c.lastFlushNs = now;
    matchKindsToCapture(c);
  } else if (now - c.lastFlushNs >= kFlushEveryNs) {
    flushCupti(c, sink, 0);
    c.lastFlushNs = now;
  }
  c.windowOpenAtFlush = open;
  writeCounts(c, sink);
}

void onClosing(RecordSink& sink) {
  Capture& c = capture();
  if (cudaTracing()) {
    flushCupti(c, sink, CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    if (!c.finished.load(std::memory_order_acquire)) {
      int64_t offset = 0;
      sink.trace().addClockAnchor(readCuptiAnchor(*c.api, &offset));
    }
    writeCounts(c, sink);
  }
  writeState(c, sink);
}

// Before CUDA's own exit handlers tear the context down (registered after CUPTI loaded, so it
// runs before CUPTI's): hand every record over while CUPTI can still give it. Completed buffers
// go through this thread's ring to the writer's last drain.
void flushAtExit() {
  Capture& c = capture();
  if (!cudaTracing() || c.finished.load(std::memory_order_acquire)) return;
  c.api->flushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  c.finished.store(true, std::memory_order_release);
}

// A subscriber is how CUPTI tells one client from another; the agent needs no callbacks.
void CUPTIAPI noCallback(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

// ---- Start ----

std::string cannotTrace(const Capture& c, const char* call, CUptiResult r) {
  return std::string("CUPTI cannot trace here (") + call + ": " + c.api->resultName(r) +
         (r == CUPTI_ERROR_UNKNOWN ? "; no usable GPU or driver?)" : ")");
}

// Subscribes as "bubblescope"; the reason it could not, or "".
std::string subscribe(Capture& c) {
  CUptiResult r;
  char incumbent[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 1] = {};
  if (c.api->subscribeV2 != nullptr) {
    CUpti_SubscriberParams params = {};
    params.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
    params.subscriberName = "bubblescope";
    params.oldSubscriberName = incumbent;
    params.oldSubscriberSize = CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN;
    r = c.api->subscribeV2(&c.subscriber, &noCallback, nullptr, &params);
  } else {
    r = c.api->subscribe(&c.subscriber, &noCallback, nullptr);
  }
  if (r == CUPTI_SUCCESS) return "";
  if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
    const std::string who =
        incumbent[0] != '\0' ? "\"" + std::string(incumbent) + "\"" : std::string("another tool");
    return "CUPTI is in use by " + who +
           " (CUPTI takes one client per process: Nsight Systems, torch.profiler, a sanitizer)";
  }
  return cannotTrace(c, "cuptiSubscribe", r);
}

uint32_t bufferCount() {
  const char* v = std::getenv("BUBBLESCOPE_CUPTI_BUFFERS");
  if (v == nullptr || *v == '\0') return kDefaultBuffers;
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  if (end == v || *end != '\0' || n < 2 || n > 1024) return kDefaultBuffers;
  return static_cast<uint32_t>(n);
}

// The reason CUDA capture could not start, or "".
std::string start(Capture& c) {
  std::string why;
  c.api = loadCupti(&why);
  if (c.api == nullptr) return why;
  why = subscribe(c);
  if (!why.empty()) return why;
  auto giveUp = [&](std::string reason) {
    if (c.api->unsubscribe != nullptr) c.api->unsubscribe(c.subscriber);
    return reason;
  };
  // API records carry gettid() thread ids, as every other table does.
  if (c.api->setThreadIdType != nullptr) {
    c.api->setThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
  }
  if (!c.pool.init(kBufferBytes, bufferCount(), kResidentBuffers)) {
    return giveUp("cannot map the CUPTI buffers");
  }
  if (CUptiResult r = c.api->registerCallbacks(&requestBuffer, &completeBuffer);
      r != CUPTI_SUCCESS) {
    return giveUp(cannotTrace(c, "cuptiActivityRegisterCallbacks", r));
  }
  c.names.load(*c.api);
  // Switched on once here, whether or not a window is open: CUPTI instruments kernels now, at
  // cuInit, not at the first window (a first enable after modules are loaded stalls the job for
  // seconds), and a process where CUPTI cannot trace says so at start. Then matched to the
  // recorder: off while dormant.
  {
    std::lock_guard lock(c.kindsMutex);
    std::string off;
    if (CUptiResult r = enableKinds(c, &off); r != CUPTI_SUCCESS) {
      return giveUp(cannotTrace(c, "cuptiActivityEnable(CONCURRENT_KERNEL)", r));
    }
    c.kindsOn = true;
    std::lock_guard stateLock(c.mutex);  // writeState reads it on the writer thread
    c.kindsOff = std::move(off);
  }
  c.kindsReady.store(true, std::memory_order_release);
  matchKindsToCapture(c);
  int64_t offset = 0;
  readCuptiAnchor(*c.api, &offset);
  c.offsetNs.store(offset);
  std::atexit(&flushAtExit);
  return "";
}

}  // namespace

void configureCudaCapture(bool requested, std::string noteWhenOff) {
  Capture& c = capture();
  {
    std::lock_guard lock(c.mutex);
    c.requested = requested;
    c.state.active = false;
    c.state.note = requested ? "CUDA was not initialised in this process" : std::move(noteWhenOff);
  }
  if (c.bufferType == 0) {
    c.bufferType = registerRecordType("cupti.buffer", &decodeBufferRecord);
    WriterHooks hooks;
    hooks.fileOpened = &onFileOpened;
    hooks.cycle = &onCycle;
    hooks.closing = &onClosing;
    addWriterHooks(hooks);
    Recorder::instance().setCaptureWantedHook(&onCaptureWanted);
  }
}

void startCudaCapture() {
  Capture& c = capture();
  {
    std::lock_guard lock(c.mutex);
    if (c.started || !c.requested) return;
    c.started = true;
  }
  std::string why;
  try {
    why = start(c);
  } catch (...) {
    why = "internal error while starting CUPTI";
  }
  if (!why.empty()) {
    turnOff(why);
    return;
  }
  setState(true, "");
  detail::g_cudaTracing.store(true, std::memory_order_release);
}

CudaCaptureState cudaCaptureState() {
  Capture& c = capture();
  std::lock_guard lock(c.mutex);
  return c.state;
}

namespace detail {

CUpti_ExternalCorrelationKind cuptiKind(ExternalIdKind kind) {
  return kind == ExternalIdKind::NcclCall ? CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0
                                          : CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1;
}

void pushExternalId(ExternalIdKind kind, uint64_t id) {
  const CuptiApi* api = capture().api;
  if (api->pushExternalCorrelationId != nullptr)
    api->pushExternalCorrelationId(cuptiKind(kind), id);
}

void popExternalId(ExternalIdKind kind) {
  const CuptiApi* api = capture().api;
  uint64_t last = 0;
  if (api->popExternalCorrelationId != nullptr)
    api->popExternalCorrelationId(cuptiKind(kind), &last);
}

}  // namespace detail

}  // namespace bubblescope::agent
