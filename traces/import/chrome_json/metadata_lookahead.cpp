#include "traces/import/chrome_json/metadata_lookahead.h"

#include <cstring>

#include "traces/import/chrome_json/trace_event_stream.h"

namespace bubblescope::traces::import {
namespace {

// Whether an event's text may be an "M" event: one holds the string "M" (its phase), so events
// without those three bytes are passed by unparsed. memchr for the rare capital first: a search
// for the quote would stop at every string.
bool mayBeMetadata(std::string_view json) {
  const char* b = json.data();
  const char* end = b + json.size();
  for (const char* p = b + 1; p + 1 < end;) {
    const void* m = std::memchr(p, 'M', static_cast<size_t>(end - 1 - p));
    if (!m) return false;
    p = static_cast<const char*>(m);
    if (p[-1] == '"' && p[1] == '"') return true;
    ++p;
  }
  return false;
}

class MetadataClueSink : public TraceEventSink {
 public:
  MetadataClueSink(DialectClues& clues, size_t chosen) : clues_(clues), chosen_(chosen) {}

  // Top-level keys count only before the first timed event (dialects.h), which the import saw.
  void topLevel(std::string_view, std::string_view, size_t) override {}
  void eventsBegin(bool) override {}
  void event(std::string_view json, size_t capacity) override {
    if (!mayBeMetadata(json)) return;
    TraceEvent e;
    if (parser_.parse(json, capacity, e) && e.ph == 'M') clues_.metadata(e, parser_);
  }
  bool satisfied() const override { return !clues_.metadataCouldOverrule(chosen_); }

 private:
  DialectClues& clues_;
  size_t chosen_;
  TraceEventParser parser_;
};

}  // namespace

void readMetadataAhead(ByteSource& input, DialectClues& clues, size_t chosen) {
  MetadataClueSink sink(clues, chosen);
  streamTraceEvents(input, sink);
}

}  // namespace bubblescope::traces::import
