#include "traces/import/chrome_json/dialects.h"

#include <iterator>

#include "traces/import/chrome_json/kineto/kineto_builder.h"
#include "traces/import/chrome_json/ndtimeline/ndtimeline_builder.h"
#include "traces/import/chrome_json/ndtimeline/ndtimeline_names.h"
#include "traces/import/chrome_json/timeline/timeline_builder.h"

namespace bubblescope::traces::import {
namespace {

// Keys only Kineto writes at the top level.
bool isKinetoKey(std::string_view key) {
  return key == "schemaVersion" || key == "deviceProperties" || key == "distributedInfo" ||
         key == "baseTimeNanoseconds";
}

bool hasKinetoCategory(const TraceEvent& e) {
  return isKinetoCategory(e.cat);
}

// NDTimeline names its threads "PP rank S, TP rank T, <category>" and its processes "DP rank d".
bool namesNdTimelineRanks(const TraceEvent& e, TraceEventParser& parser) {
  TraceEventArgs a;
  if (!parser.parseArgs(e, a)) return false;
  return (e.name == "thread_name" && ndtimeline::parseThreadName(a.name)) ||
         (e.name == "process_name" && ndtimeline::parseProcessName(a.name));
}

template <class Builder>
std::unique_ptr<DialectBuilder> make(const std::filesystem::path& file) {
  return std::make_unique<Builder>(file);
}

constexpr ChromeDialect kDialects[] = {
    // byTopLevelKey, byMetadata,        byFirstTimedEvent, builder
    {isKinetoKey, nullptr, hasKinetoCategory, make<KinetoBuilder>},
    {nullptr, namesNdTimelineRanks, nullptr, make<ndtimeline::NdTimelineBuilder>},
    {nullptr, nullptr, nullptr, make<TimelineBuilder>},  // a plain timeline
};

}  // namespace

std::span<const ChromeDialect> chromeDialects() {
  return kDialects;
}

DialectClues::DialectClues() : told_(std::size(kDialects), false) {}

void DialectClues::topLevelKey(std::string_view key) {
  for (size_t i = 0; i < told_.size(); ++i) {
    if (kDialects[i].byTopLevelKey && kDialects[i].byTopLevelKey(key)) told_[i] = true;
  }
}

void DialectClues::metadata(const TraceEvent& e, TraceEventParser& parser) {
  for (size_t i = 0; i < told_.size(); ++i) {
    if (!told_[i] && kDialects[i].byMetadata) told_[i] = kDialects[i].byMetadata(e, parser);
  }
}

size_t DialectClues::detectDialect(const TraceEvent* firstTimed) const {
  for (size_t i = 0; i < told_.size(); ++i) {
    if (told_[i]) return i;
    if (firstTimed && kDialects[i].byFirstTimedEvent && kDialects[i].byFirstTimedEvent(*firstTimed))
      return i;
  }
  return told_.size() - 1;
}

bool DialectClues::metadataCouldOverrule(size_t chosen) const {
  for (size_t i = 0; i < chosen && i < told_.size(); ++i) {
    if (kDialects[i].byMetadata && !told_[i]) return true;
  }
  return false;
}

}  // namespace bubblescope::traces::import
