#pragma once
// What every Chrome-trace dialect's builder does: take the file's top-level keys and its events
// as they stream by, and give its ranks at the end. The dialects are listed in dialects.h.
#include <cstddef>
#include <string_view>

#include "traces/import/chrome_json/trace_event.h"
#include "traces/import/imported.h"

namespace bubblescope::traces::import {

class DialectBuilder {
 public:
  virtual ~DialectBuilder() = default;
  // A top-level key other than traceEvents, with its value's JSON text and `capacity` readable
  // bytes (simdjson padding); only Kineto writes keys of its own.
  virtual void topLevel(std::string_view /*key*/, std::string_view /*json*/, size_t /*capacity*/) {}
  virtual void event(const TraceEvent& e, TraceEventParser& parser) = 0;
  // Throws TraceError naming the file when the events made no rank.
  virtual ImportedFile finish() = 0;
};

}  // namespace bubblescope::traces::import
