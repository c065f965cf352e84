#pragma once
// The Chrome-trace JSON dialects bubblescope reads, in one table: what tells each apart before
// the first timed event, and the builder that turns its events into ranks.
#include <cstddef>
#include <filesystem>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "traces/import/chrome_json/dialect_builder.h"
#include "traces/import/chrome_json/trace_event.h"

namespace bubblescope::traces::import {

// One dialect. Its clues (nullptr: none of that kind) count only until the first timed event
// ("X", "B", "i", "I"): from that event on, events go straight to the chosen builder.
struct ChromeDialect {
  bool (*byTopLevelKey)(std::string_view key);
  bool (*byMetadata)(const TraceEvent& e, TraceEventParser& parser);  // an "M" event
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
  // that decides: NDTimeline's thread names count only when they come before the first timed
  // event (a file whose metadata comes after its events reads as a plain timeline).
  size_t detectDialect(const TraceEvent* firstTimed) const;

 private:
  std::vector<bool> told_;  // by dialect
};

}  // namespace bubblescope::traces::import
