#pragma once
// A generic Chrome-trace timeline (op-level timelines such as Megatron timers or NDTimeline:
// events named "forward-compute", "backward-send", ... with args mb_id, model_chunk, step, and
// pid = rank) -> one RankTrace per pid, every event a range in the default domain.
// Megatron timer names with a microbatch in args are rewritten into the bubblescope convention
// ("forward-compute" mb 3 chunk 1 -> "F mb=3 ch=1", "backward-compute" -> "BW mb=3",
// "forward-send" -> "SEND F mb=3 to=<stage + 1>"; the peer stage only when args give the stage);
// without a microbatch they keep their names (the analyzer's Megatron rule set counts them).
// args.step becomes one "step N" range per step; args.stage becomes BUBBLESCOPE_PP_RANK.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "traces/import/chrome_json/dialect_builder.h"
#include "traces/import/chrome_json/trace_event.h"
#include "traces/import/imported.h"
#include "traces/import/rank_builder.h"

namespace bubblescope::traces::import {

// The bubblescope-convention label of a Megatron timer name, or nullopt to keep the name.
// `peerStage` < 0: unknown (the label then names no peer).
std::optional<std::string> conventionLabel(std::string_view name, const TraceEventArgs& args,
                                           int peerStage);

class TimelineBuilder : public DialectBuilder {
 public:
  explicit TimelineBuilder(const std::filesystem::path& file);

  void event(const TraceEvent& e, TraceEventParser& parser) override;
  ImportedFile finish() override;

 private:
  struct PendingTransfer {  // a transfer whose peer stage is known only at the end
    size_t range;
    std::string name;
    int64_t mb, chunk;
  };
  struct Rank {
    RankBuilder builder;
    std::map<int64_t, Interval> steps;
    ThreadIndex firstThread = 0;
    bool any = false;
    std::optional<int64_t> stage, dpRank;
    bool stageConflict = false;
    int maxChunk = 0;
    std::vector<PendingTransfer> transfers;
  };
  struct Open {
    std::string name;
    TimeNs start;
    std::string args;  // the B event's args, padded for simdjson
  };

  Rank& rankOf(const TraceEvent& e);
  void complete(const TraceEvent& e, TraceEventParser& parser);

  std::filesystem::path file_;
  std::map<int64_t, Rank> ranks_;
  std::map<std::string, int64_t, std::less<>> textPids_;
  std::map<std::pair<int64_t, int64_t>, std::vector<Open>> open_;
  std::map<std::string, uint64_t> skipped_;
};

}  // namespace bubblescope::traces::import
