#pragma once
// A Chrome-trace file's events parsed one batch ahead of the builder that takes them, on a thread
// of their own: the read, the decompression, the scan and simdjson's parse of each event are half
// of a large file's import, and the builder the other half (a 3.2 GB timeline: ~15 s on one
// thread). The sink hears every event in file order, as from streamTraceEvents and a parse in
// line, so what it builds does not depend on the thread that parsed.
#include <cstddef>
#include <string_view>

#include "traces/import/byte_source.h"
#include "traces/import/chrome_json/trace_event.h"

namespace bubblescope::traces::import {

class ParsedEventSink {
 public:
  virtual ~ParsedEventSink() = default;
  // A top-level key other than traceEvents, as TraceEventSink::topLevel hears it.
  virtual void topLevel(std::string_view key, std::string_view json, size_t capacity) = 0;
  // One event, parsed: its strings and its args' text (padded for simdjson) are valid during the
  // call only. `json` is the event's own text, with `capacity` readable bytes, for metadata events
  // ('M') only, the ones a sink may keep to parse again; empty for the others.
  virtual void event(const TraceEvent& e, std::string_view json, size_t capacity) = 0;
  // An object in the events array that TraceEventParser::parse refuses.
  virtual void malformedEvent() = 0;
};

// Streams `source` as streamTraceEvents does, each event parsed on a second thread when
// `sideThread` (else on the caller's, in line). Throws the first error in file order, the
// stream's (TraceError: not JSON, truncated) or the sink's, once the second thread has stopped.
void streamParsedEvents(ByteSource& source, ParsedEventSink& sink, bool sideThread);

}  // namespace bubblescope::traces::import
