#pragma once
// One Chrome-trace event as the importers use it: the common fields parsed (times as int64 ns),
// the args left as JSON text for the few event kinds that need them.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

namespace bubblescope::traces::import {

// simdjson's SIMDJSON_PADDING: the bytes it may read past a text it parses in place, which every
// text handed to the parser must have readable after it (trace_event.cpp checks the value).
inline constexpr size_t kJsonPadding = 64;

// Kineto's event categories ("cat"), with the legacy spellings folded in.
enum class Category : uint8_t {
  Other,
  CpuOp,              // cpu_op, operator
  UserAnnotation,     // user_annotation (torch.profiler.record_function)
  GpuUserAnnotation,  // gpu_user_annotation (the same ranges projected on a stream)
  Kernel,             // kernel, Kernel
  Memcpy,             // gpu_memcpy, Memcpy
  Memset,             // gpu_memset, Memset
  CudaRuntime,        // cuda_runtime, Runtime
  CudaDriver,         // cuda_driver
  CudaSync,           // cuda_sync
  PythonFunction,     // python_function
  Flow,               // ac2g, fwdbwd, async_cpu_to_gpu (flow arrows)
};
Category categoryOf(std::string_view cat);
bool isKinetoCategory(Category c);  // one only Kineto writes (not Other)

struct TraceEvent {
  char ph = 0;
  Category cat = Category::Other;
  std::string_view catName;
  std::string_view name;
  // pid/tid are numbers in Kineto; other tools write strings ("Spans", "Main thread").
  int64_t pid = 0, tid = 0;
  std::string_view pidText, tidText;  // the id's text when it is a string, not a number
  bool pidIsText = false, tidIsText = false;
  std::optional<int64_t> ts, dur;  // ns (the file's microseconds, exactly)
  std::string_view args;           // the args object's JSON text, if any
  size_t argsCapacity = 0;         // readable bytes from args.data() (simdjson padding)
};

// The args fields the importers read, from any of the spellings seen in real traces.
struct TraceEventArgs {
  // GPU activity and API calls
  std::optional<int64_t> correlation, externalId, device, stream, bytes;
  // record_param_comms (c10d collective metadata)
  std::string_view collective, dtype, pgName, pgDesc, pgRanks;
  std::optional<int64_t> inNelems, outNelems, groupSize, srcRank, dstRank, seq;
  // [memory] instant events (the caching allocator's calls): c10 device type (1 = CUDA), ordinal,
  // and the allocator's totals after the call
  std::optional<int64_t> deviceType, deviceId, totalAllocated, totalReserved;
  // metadata events ("M"): process_name, thread_name, ...
  std::string_view name, labels;
  // op-level timelines (Megatron timers, NDTimeline): microbatch, chunk, step, stage, DP rank
  std::optional<int64_t> mb, chunk, step, stage, dpRank;
};

// Parsers keep their buffers between calls: one per importing thread.
class TraceEventParser {
 public:
  TraceEventParser();
  ~TraceEventParser();
  TraceEventParser(const TraceEventParser&) = delete;
  TraceEventParser& operator=(const TraceEventParser&) = delete;

  // False for text that is not a JSON object of the expected shape, or whose pid or tid is a
  // number but no integer (1.5). Strings point into the parser (valid until the next parse) or
  // into `json`.
  bool parse(std::string_view json, size_t capacity, TraceEvent& out);
  // False, and no args, when they are not an object or an integer arg is a number but no integer.
  bool parseArgs(const TraceEvent& event, TraceEventArgs& out);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The simdjson kernels in play, for benchmarks. On-Demand indexes an event's structure (stage 1,
// the SIMD part) with the kernel simdjson picks for the CPU at run time ("active"), and walks its
// values with code compiled into the importer ("builtin": what the compiler's target flags allow,
// `fallback` without -march).
struct JsonKernels {
  std::string_view builtin, active;
};
JsonKernels jsonKernels();

}  // namespace bubblescope::traces::import
