#pragma once
// The Chrome-trace JSON dialects bubblescope reads, in one table: what tells each apart, and the
// builder that turns its events into ranks.
#include <cstddef>
#include <filesystem>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "traces/import/chrome_json/dialect_builder.h"
#include "traces/import/chrome_json/trace_event.h"

namespace bubblescope::traces::import {

// One dialect. Its clues (nullptr: none of that kind) are read as the file streams; the choice
// is made at the first timed event ("X", "B", "i", "I"), and from that event on, events go
// straight to the chosen builder. Top-level keys count only before that event; metadata counts
// wherever it is in the file (NDTimeline writes its thread names after all its events), so the
// importer reads the rest of the file's metadata ahead when it could still change the choice.
struct ChromeDialect {
  bool (*byTopLevelKey)(std::string_view key);
  bool (*byMetadata)(const TraceEvent& e, TraceEventParser& parser);  // an "M" event, anywhere
  bool (*byFirstTimedEvent)(const TraceEvent& e);
  std::unique_ptr<DialectBuilder> (*builder)(const std::filesystem::path& file);
};

// In the order they are tried; the last is told by nothing and takes what no other is told by.
std::span<const ChromeDialect> chromeDialects();

// What a file has said about its dialect so far, gathered as it streams.
class DialectClues {
 public:
  DialectClues();
  void topLevelKey(std::string_view key);
  void metadata(const TraceEvent& e, TraceEventParser& parser);
  // The dialect (its index in chromeDialects()), decided at the first timed event, or at the end
  // of a file without one (`firstTimed` null): the first told, else the last. The one place
  // that decides, from the clues gathered so far.
  size_t detectDialect(const TraceEvent* firstTimed) const;
  // Whether metadata not read yet could still overrule `chosen`: a dialect tried before it is
  // told by metadata and has not been told so far. The importer then reads ahead.
  bool metadataCouldOverrule(size_t chosen) const;

 private:
  std::vector<bool> told_;  // by dialect
};

}  // namespace bubblescope::traces::import
