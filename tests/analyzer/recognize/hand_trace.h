#pragma once
// One rank's trace written event by event, for the recognition tests: NVTX ranges, CUDA launch
// calls and the kernels they launched (joined on the correlation id), copies and memsets.
#include <string>

#include "traces/model/sort.h"
#include "traces/model/trace.h"

namespace bubblescope::testing {

struct HandTrace {
  traces::RankTrace t;

  HandTrace() {
    t.threadIndex(100);  // main thread: index 0
    t.threadIndex(200);  // comm thread: index 1
  }
  HandTrace& range(traces::ThreadIndex thread, TimeNs start, TimeNs end, const std::string& name,
                   const std::string& domain = "") {
    t.ranges->start.push_back(start);
    t.ranges->end.push_back(end);
    t.ranges->thread.push_back(thread);
    t.ranges->domain.push_back(t.strings.intern(domain));
    t.ranges->name.push_back(t.strings.intern(name));
    t.ranges->depth.push_back(0);
    t.ranges->kind.push_back(traces::RangeKind::PushPop);
    return *this;
  }
  // cudaLaunchKernel on `thread` at `at` (none if `at` < 0), and the kernel it launched, running
  // [start, end].
  HandTrace& kernel(traces::ThreadIndex thread, TimeNs at, uint32_t correlation, TimeNs start,
                    TimeNs end, const std::string& name = "gemm") {
    if (at >= 0) {
      t.apiCalls->start.push_back(at);
      t.apiCalls->end.push_back(at + 1);
      t.apiCalls->thread.push_back(thread);
      t.apiCalls->name.push_back(t.strings.intern("cudaLaunchKernel"));
      t.apiCalls->correlation.push_back(correlation);
    }
    t.kernels->start.push_back(start);
    t.kernels->end.push_back(end);
    t.kernels->stream.push_back(0);
    t.kernels->name.push_back(t.strings.intern(name));
    t.kernels->correlation.push_back(correlation);
    return *this;
  }
  HandTrace& memcpy(TimeNs start, TimeNs end) {
    t.memcpys->start.push_back(start);
    t.memcpys->end.push_back(end);
    t.memcpys->stream.push_back(0);
    t.memcpys->correlation.push_back(0);
    t.memcpys->bytes.push_back(1024);
    t.memcpys->copyKind.push_back(traces::MemcpyKind::HostToDevice);
    return *this;
  }
  HandTrace& memset(TimeNs start, TimeNs end) {
    t.memsets->start.push_back(start);
    t.memsets->end.push_back(end);
    t.memsets->stream.push_back(0);
    t.memsets->correlation.push_back(0);
    t.memsets->bytes.push_back(1024);
    return *this;
  }
  // Sorted, as every trace the analyzer reads is.
  const traces::RankTrace& trace() {
    traces::sortEvents(t);
    return t;
  }
};

}  // namespace bubblescope::testing
