#pragma once
// Imports an NDTimeline timeline (ndtimeline_names.h): every (DP, PP, TP) rank becomes a RankTrace
// with its coordinates (BUBBLESCOPE_DP_RANK / PP_RANK / TP_RANK and the sizes), its timer events
// rewritten into the bubblescope convention ("forward-compute" mb 3 chunk 1 -> "F mb=3 ch=1",
// "forward-send" -> "SEND F mb=3 to=<next stage>", DP collectives -> "grad_sync <name>"), one
// "step N" range per args.step, and one thread per category. Comm events hold only the transfer
// (the exporter cut the waiting off), so waiting stays a gap. Events are buffered until the end:
// the thread metadata that places a rank may come after its events.
#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "traces/import/chrome_json/dialect_builder.h"
#include "traces/import/chrome_json/ndtimeline/thread_names.h"
#include "traces/import/chrome_json/trace_event.h"
#include "traces/import/imported.h"

namespace bubblescope::traces::import::ndtimeline {

class NdTimelineBuilder : public DialectBuilder {
 public:
  explicit NdTimelineBuilder(const std::filesystem::path& file);

  void event(const TraceEvent& e, TraceEventParser& parser) override;
  // Throws TraceError naming the file: no timed events, a rank whose threads say no place.
  ImportedFile finish() override;

  // An event as buffered (32 bytes: a 1024-rank job keeps ~1 M of them until the end).
  struct Event {
    TimeNs start = 0, end = 0;
    uint32_t name = 0;  // into names_
    int32_t mb = -1;
    int32_t step = INT32_MIN;
    int16_t chunk = 0;
    uint8_t category = 0;  // tid % 5
  };

 private:
  // One rank's events, in blocks (a deque) so that growing never holds twice the events, and
  // freed as soon as the rank is built: reset, since even an empty deque holds a block (20,000
  // ranks' empty deques were 11 MB of the import).
  struct RankBuffer {
    int32_t pid = 0;
    std::optional<std::deque<Event>> events{std::in_place};
  };

  uint32_t nameId(std::string_view name);

  std::filesystem::path file_;
  std::map<int64_t, RankBuffer> ranks_;  // by global rank (tid / 5)
  std::string conflict_;                 // a rank seen under two pids: the error to raise
  std::vector<std::string> names_;
  // Found by the event's own text: a key made for every event was a copy of a name (and, past 15
  // characters, an allocation) for each of the timeline's millions of events.
  struct NameHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, uint32_t, NameHash, std::equal_to<>> nameIds_;
  ThreadNames threadNames_;
  std::map<int64_t, std::string> processNames_;
  std::map<std::string, uint64_t> skipped_;
};

}  // namespace bubblescope::traces::import::ndtimeline
