#pragma once
// Streams a Chrome-trace JSON file (an object with "traceEvents", or a bare array of events) one
// event at a time with bounded memory: a small scanner finds each event's extent and hands its
// text out, padded so simdjson can parse it in place. Other top-level keys come out whole.
#include <cstddef>
#include <string_view>
#include <vector>

#include "traces/import/byte_source.h"

namespace bubblescope::traces::import {

class TraceEventSink {
 public:
  virtual ~TraceEventSink() = default;
  // A top-level key other than traceEvents, with its value's JSON text (values over 64 MiB are
  // skipped). `capacity` bytes are readable from json.data() (at least json.size() + 64).
  virtual void topLevel(std::string_view key, std::string_view json, size_t capacity) = 0;
  // The traceEvents array begins; `bareArray` when the file is just an array of events.
  virtual void eventsBegin(bool bareArray) = 0;
  // One element of the events array (an object; other values are skipped).
  virtual void event(std::string_view json, size_t capacity) = 0;
  // True once the sink needs nothing more: the stream stops there, the rest of the file unread.
  virtual bool satisfied() const { return false; }
  // The top-level object closed: every key it has was read.
  virtual void objectEnd() {}
};

struct EventStreamStats {
  bool sawEvents = false;  // the file had an events array
  size_t events = 0;
  bool stopped = false;  // the sink was satisfied before the end
};

// Throws TraceError naming the file: not JSON, JSON that is not a trace (no traceEvents array),
// or a file that ends in the middle (of what was read: a satisfied sink stops the reading).
EventStreamStats streamTraceEvents(ByteSource& source, TraceEventSink& sink);

}  // namespace bubblescope::traces::import
