#include "traces/import/chrome_json/chrome_trace_import.h"

#include <memory>
#include <string>
#include <vector>

#include "traces/errors.h"
#include "traces/import/chrome_json/kineto/kineto_builder.h"
#include "traces/import/chrome_json/ndtimeline/ndtimeline_builder.h"
#include "traces/import/chrome_json/ndtimeline/ndtimeline_names.h"
#include "traces/import/chrome_json/timeline/timeline_builder.h"
#include "traces/import/chrome_json/trace_event_stream.h"

namespace bubblescope::traces::import {
namespace {

constexpr size_t kPadding = 64;

bool isKinetoKey(std::string_view key) {
  return key == "schemaVersion" || key == "deviceProperties" || key == "distributedInfo" ||
         key == "baseTimeNanoseconds";
}

// Routes events to the Kineto or the timeline builder, once the first timed event says which.
class ChromeTraceSink : public TraceEventSink {
 public:
  explicit ChromeTraceSink(const std::filesystem::path& file) : file_(file), kineto_(file) {}

  void topLevel(std::string_view key, std::string_view json, size_t capacity) override {
    kinetoKeys_ = kinetoKeys_ || isKinetoKey(key);
    kineto_.topLevel(key, json, capacity);
  }
  void eventsBegin(bool) override {}

  void event(std::string_view json, size_t capacity) override {
    ++events_;
    TraceEvent e;
    if (!parser_.parse(json, capacity, e)) {
      ++malformed_;
      return;
    }
    if (mode_ == Mode::Undecided) {
      if (e.ph != 'X' && e.ph != 'B' && e.ph != 'i' && e.ph != 'I') {
        // Metadata usually comes first: keep it until the mode is known.
        if (e.ph == 'M') {
          noteNdTimeline(e);
          pending_.emplace_back(std::string(json) + std::string(kPadding, ' '));
        }
        return;
      }
      decide(kinetoKeys_ || isKinetoCategory(e.cat) ? Mode::Kineto
             : ndTimeline_                          ? Mode::NdTimeline
                                                    : Mode::Timeline);
      // Replaying re-parsed the pending events: parse this one again.
      if (!pending_.empty() || replayed_) {
        if (!parser_.parse(json, capacity, e)) return;
      }
    }
    dispatch(e);
  }

  ImportedFile finish() {
    if (events_ > 0 && malformed_ == events_) {
      throw TraceError(file_, "none of its " + std::to_string(events_) +
                                  " trace events is a JSON object with the expected fields");
    }
    if (mode_ == Mode::Undecided) {
      decide(kinetoKeys_ ? Mode::Kineto : ndTimeline_ ? Mode::NdTimeline : Mode::Timeline);
    }
    ImportedFile out = mode_ == Mode::Kineto       ? kineto_.finish()
                       : mode_ == Mode::NdTimeline ? ndtimeline_->finish()
                                                   : timeline_->finish();
    if (malformed_ > 0) out.skipped["malformed events"] += malformed_;
    return out;
  }

 private:
  enum class Mode { Undecided, Kineto, Timeline, NdTimeline };

  // NDTimeline names its threads "PP rank S, TP rank T, <category>" and its processes "DP rank d".
  void noteNdTimeline(const TraceEvent& e) {
    TraceEventArgs a;
    if (ndTimeline_ || !parser_.parseArgs(e, a)) return;
    ndTimeline_ = (e.name == "thread_name" && ndtimeline::parseThreadName(a.name)) ||
                  (e.name == "process_name" && ndtimeline::parseProcessName(a.name));
  }

  void decide(Mode m) {
    mode_ = m;
    if (m == Mode::Timeline) timeline_ = std::make_unique<TimelineBuilder>(file_);
    if (m == Mode::NdTimeline) {
      ndtimeline_ = std::make_unique<ndtimeline::NdTimelineBuilder>(file_);
    }
    for (const std::string& json : pending_) {
      TraceEvent e;
      if (parser_.parse(std::string_view(json).substr(0, json.size() - kPadding), json.size(), e)) {
        dispatch(e);
      }
    }
    replayed_ = !pending_.empty();
    pending_.clear();
  }

  void dispatch(const TraceEvent& e) {
    if (mode_ == Mode::Kineto) {
      kineto_.event(e, parser_);
    } else if (mode_ == Mode::NdTimeline) {
      ndtimeline_->event(e, parser_);
    } else {
      timeline_->event(e, parser_);
    }
  }

  std::filesystem::path file_;
  TraceEventParser parser_;
  KinetoBuilder kineto_;
  std::unique_ptr<TimelineBuilder> timeline_;
  std::unique_ptr<ndtimeline::NdTimelineBuilder> ndtimeline_;
  Mode mode_ = Mode::Undecided;
  bool kinetoKeys_ = false, replayed_ = false, ndTimeline_ = false;
  std::vector<std::string> pending_;
  size_t events_ = 0, malformed_ = 0;
};

}  // namespace

ImportedFile importChromeTrace(ByteSource& source) {
  ChromeTraceSink sink(source.name());
  streamTraceEvents(source, sink);
  return sink.finish();
}

ImportedFile importChromeTraceFile(const std::filesystem::path& file) {
  ByteSource source(file);
  return importChromeTrace(source);
}

}  // namespace bubblescope::traces::import
