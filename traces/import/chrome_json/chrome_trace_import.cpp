#include "traces/import/chrome_json/chrome_trace_import.h"

#include <memory>
#include <string>
#include <vector>

#include "traces/errors.h"
#include "traces/import/chrome_json/dialects.h"
#include "traces/import/chrome_json/metadata_lookahead.h"
#include "traces/import/chrome_json/parsed_event_stream.h"
#include "traces/import/chrome_json/trace_event.h"
#include "traces/parallel/parallel_for.h"

namespace bubblescope::traces::import {
namespace {

bool isTimed(char ph) {
  return ph == 'X' || ph == 'B' || ph == 'i' || ph == 'I';
}

// Routes events to one dialect's builder, once the first timed event says which (dialects.h).
class ChromeTraceSink : public ParsedEventSink {
 public:
  explicit ChromeTraceSink(const ByteSource& source) : source_(source), file_(source.name()) {
    // Every dialect's builder hears the top-level keys, which may come before the choice.
    for (const ChromeDialect& d : chromeDialects()) builders_.push_back(d.builder(file_));
  }

  void topLevel(std::string_view key, std::string_view json, size_t capacity) override {
    clues_.topLevelKey(key);
    for (auto& b : builders_) b->topLevel(key, json, capacity);
  }

  void malformedEvent() override {
    ++events_;
    ++malformed_;
  }

  // `e` was parsed by the stream (its texts in the stream's batch); parser_ reads its args.
  void event(const TraceEvent& e, std::string_view json, size_t) override {
    ++events_;
    if (!chosen_) {
      if (!isTimed(e.ph)) {
        // Metadata usually comes first: keep it until the dialect is known.
        if (e.ph == 'M') {
          clues_.metadata(e, parser_);
          pending_.emplace_back(std::string(json) + std::string(kJsonPadding, ' '));
        }
        return;
      }
      size_t dialect = clues_.detectDialect(&e);
      if (clues_.metadataCouldOverrule(dialect)) {
        // Metadata after the events (NDTimeline's) may yet name the dialect: read it ahead, in a
        // pass of its own, rather than keep the events until the end.
        readMetadataAhead(*source_.reopen(), clues_, dialect);
        dialect = clues_.detectDialect(&e);
      }
      choose(dialect);
    }
    chosen_->event(e, parser_);
  }

  ImportedFile finish() {
    if (events_ > 0 && malformed_ == events_) {
      throw TraceError(file_, "none of its " + std::to_string(events_) +
                                  " trace events is a JSON object with the expected fields");
    }
    if (!chosen_) choose(clues_.detectDialect(nullptr));
    ImportedFile out = chosen_->finish();
    if (malformed_ > 0) out.skipped["malformed events"] += malformed_;
    return out;
  }

 private:
  void choose(size_t dialect) {
    chosen_ = builders_[dialect].get();
    for (const std::string& json : pending_) {
      TraceEvent e;
      if (parser_.parse(std::string_view(json).substr(0, json.size() - kJsonPadding), json.size(),
                        e)) {
        chosen_->event(e, parser_);
      }
    }
    std::vector<std::string>().swap(pending_);  // its room too: 8 MB at 20,000 ranks' metadata
  }

  const ByteSource& source_;
  std::filesystem::path file_;
  TraceEventParser parser_;
  DialectClues clues_;
  std::vector<std::unique_ptr<DialectBuilder>> builders_;  // by dialect
  DialectBuilder* chosen_ = nullptr;
  std::vector<std::string> pending_;
  size_t events_ = 0, malformed_ = 0;
};

}  // namespace

ImportedFile importChromeTrace(ByteSource& source, bool parseAside) {
  ChromeTraceSink sink(source);
  streamParsedEvents(source, sink, parseAside);
  return sink.finish();
}

ImportedFile importChromeTrace(ByteSource& source) {
  return importChromeTrace(source, threadCount(0) > 1);
}

ImportedFile importChromeTraceFile(const std::filesystem::path& file, unsigned threads) {
  ByteSource source(file);
  return importChromeTrace(source, threadCount(threads) > 1);
}

}  // namespace bubblescope::traces::import
