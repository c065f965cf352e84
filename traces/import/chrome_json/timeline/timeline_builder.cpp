#include "traces/import/chrome_json/timeline/timeline_builder.h"

#include "traces/errors.h"
#include "traces/format/field_range.h"
#include "traces/import/chrome_json/trace_event.h"
#include "traces/import/collectives.h"

namespace bubblescope::traces::import {
namespace {

struct Timer {
  std::string_view name;
  const char* kind;  // op kind, or the pass of a transfer
  int direction;     // 0 compute, 1 send, -1 recv
};

// Megatron-LM's timer names (megatron/core/pipeline_parallel/schedules.py) as op-level
// timelines carry them.
constexpr Timer kTimers[] = {
    {"forward-compute", "F", 0}, {"backward-compute", "BW", 0}, {"forward-send", "F", 1},
    {"forward-recv", "F", -1},   {"backward-send", "B", 1},     {"backward-recv", "B", -1},
};

const Timer* timerOf(std::string_view name) {
  for (const Timer& t : kTimers) {
    if (name == t.name) return &t;
  }
  return nullptr;
}

}  // namespace

std::optional<std::string> conventionLabel(std::string_view name, const TraceEventArgs& a,
                                           int peerStage) {
  const Timer* t = timerOf(name);
  if (!t || !a.mb || *a.mb < 0) return std::nullopt;
  std::string label;
  if (t->direction > 0) label = "SEND ";
  if (t->direction < 0) label = "RECV ";
  label += t->kind;
  label += " mb=" + std::to_string(*a.mb);
  if (a.chunk && *a.chunk > 0) label += " ch=" + std::to_string(*a.chunk);
  if (t->direction != 0 && peerStage >= 0) {
    label += (t->direction > 0 ? " to=" : " from=") + std::to_string(peerStage);
  }
  return label;
}

TimelineBuilder::TimelineBuilder(const std::filesystem::path& file) : file_(file) {}

TimelineBuilder::Rank& TimelineBuilder::rankOf(const TraceEvent& e) {
  int64_t pid = e.pid;
  if (e.pidIsText) {
    // Processes named by strings are ranks in the order they appear, after any numeric ones.
    auto it = textPids_.find(e.pidText);
    if (it == textPids_.end()) {
      it = textPids_.emplace(std::string(e.pidText), -1 - static_cast<int64_t>(textPids_.size()))
               .first;
    }
    pid = it->second;
  }
  Rank& r = ranks_[pid];
  if (!r.any) {
    r.any = true;
    r.builder.meta().source = "chrome-trace";
    r.builder.meta().agentVersion.clear();
    r.builder.meta().rank = pid >= 0 && pid < INT32_MAX ? static_cast<int>(pid) : -1;
    r.builder.meta().pid = pid;
  }
  return r;
}

void TimelineBuilder::event(const TraceEvent& e, TraceEventParser& parser) {
  switch (e.ph) {
    case 'X':
      complete(e, parser);
      return;
    case 'B':
      if (e.ts) {
        std::string args(e.args);
        args.append(kJsonPadding, ' ');
        open_[{e.pid, e.tid}].push_back({std::string(e.name), *e.ts, std::move(args)});
      }
      return;
    case 'E': {
      auto it = open_.find({e.pid, e.tid});
      if (it == open_.end() || it->second.empty() || !e.ts) return;
      Open o = std::move(it->second.back());
      it->second.pop_back();
      TraceEvent x = e;
      x.ph = 'X';
      x.name = o.name;
      x.ts = o.start;
      x.dur = *e.ts - o.start;
      x.args = std::string_view(o.args).substr(0, o.args.size() - kJsonPadding);
      x.argsCapacity = o.args.size();
      complete(x, parser);
      return;
    }
    case 'i':
    case 'I':
      if (e.ts) {
        Rank& r = rankOf(e);
        r.builder.addMark(*e.ts, r.builder.thread(static_cast<uint64_t>(e.tid)), 0,
                          r.builder.intern(e.name));
      }
      return;
    case 'M': {
      TraceEventArgs a;
      if (!parser.parseArgs(e, a) || a.name.empty()) return;
      Rank& r = rankOf(e);
      if (e.name == "thread_name") r.builder.nameThread(static_cast<uint64_t>(e.tid), a.name);
      if (e.name == "process_name") r.builder.meta().extra["chrome.process_name"] = a.name;
      return;
    }
    default:
      ++skipped_[std::string("'") + e.ph + "' events"];
  }
}

void TimelineBuilder::complete(const TraceEvent& e, TraceEventParser& parser) {
  if (!e.ts || e.name.empty()) {
    ++skipped_["events without a name or time"];
    return;
  }
  TraceEventArgs a;
  if (!parser.parseArgs(e, a)) ++skipped_["events with malformed args (imported without them)"];
  Rank& r = rankOf(e);
  const TimeNs start = *e.ts;
  const TimeNs end = start + std::max<TimeNs>(0, e.dur.value_or(0));
  const uint64_t tid =
      !e.tidIsText ? static_cast<uint64_t>(e.tid) : (stableHash(e.tidText) & 0x7fffffff);
  const ThreadIndex thread = r.builder.thread(tid);
  if (e.tidIsText && r.builder.trace().threads[thread].name == 0) {
    r.builder.nameThread(tid, e.tidText);
  }
  if (r.builder.trace().ranges->size() == 0) r.firstThread = thread;
  // A stage or DP rank's size, one more, must fit an int; a chunk times the stages, an int64.
  // Megatron's exporters write -1 for "none" (a chunk, a microbatch): a DP rank of -1 is none.
  if (a.stage) {
    const int64_t stage = fieldInRange<int64_t>(file_, "args.stage", *a.stage, 0, INT32_MAX - 1);
    if (r.stage && *r.stage != stage) r.stageConflict = true;
    r.stage = stage;
  }
  if (a.dpRank && *a.dpRank != -1) {
    r.dpRank = fieldInRange<int64_t>(file_, "args.dp_rank", *a.dpRank, 0, INT32_MAX - 1);
  }
  if (a.chunk) {
    r.maxChunk =
        std::max(r.maxChunk, fieldInRange<int>(file_, "args.model_chunk", *a.chunk, -1, INT16_MAX));
  }
  if (a.step) {
    auto [it, added] = r.steps.try_emplace(*a.step, Interval{start, end});
    it->second.start = std::min(it->second.start, start);
    it->second.end = std::max(it->second.end, end);
  }
  const Timer* timer = timerOf(e.name);
  std::optional<std::string> label = conventionLabel(e.name, a, -1);
  if (label && timer && timer->direction != 0) {
    // The peer stage needs the pipeline's size: named at the end.
    r.transfers.push_back(
        {r.builder.trace().ranges->size(), std::string(e.name), *a.mb, a.chunk.value_or(0)});
  }
  r.builder.addRange(start, end, thread, 0, r.builder.intern(label ? *label : e.name));
}

ImportedFile TimelineBuilder::finish() {
  if (ranks_.empty()) throw TraceError(file_, "a trace with no events that have a name and time");
  // Stages from args, when every rank gives one: the pipeline's size, and the transfers' peers.
  bool allStaged = true, anyTransfers = false;
  int64_t p = 0;
  for (auto& [pid, r] : ranks_) {
    anyTransfers = anyTransfers || !r.transfers.empty();
    allStaged = allStaged && r.stage && !r.stageConflict;
    if (r.stage) p = std::max(p, *r.stage + 1);
  }
  ImportedFile out;
  out.file = file_;
  out.format = "chrome-trace";
  out.skipped = std::move(skipped_);
  for (auto& [pid, r] : ranks_) {
    RankBuilder& b = r.builder;
    for (const auto& [step, span] : r.steps) {
      b.addRange(span.start, span.end, r.firstThread, 0, b.intern("step " + std::to_string(step)));
    }
    for (const PendingTransfer& t : r.transfers) {
      int peer = -1;
      if (allStaged) {
        const Timer* timer = timerOf(t.name);
        const bool forward = timer->kind[0] == 'F';
        const bool towardsLater = forward == (timer->direction > 0);
        // Virtual stages (chunk * p + stage) are looped over the ranks.
        const int64_t vs = t.chunk * p + *r.stage + (towardsLater ? 1 : -1);
        if (vs >= 0 && vs < p * (r.maxChunk + 1)) peer = static_cast<int>(vs % p);
      }
      TraceEventArgs a;
      a.mb = t.mb;
      a.chunk = t.chunk;
      b.trace().ranges->name[t.range] = b.intern(*conventionLabel(t.name, a, peer));
    }
    if (allStaged) {
      b.meta().extra["BUBBLESCOPE_PP_RANK"] = std::to_string(*r.stage);
      b.meta().extra["BUBBLESCOPE_PP_SIZE"] = std::to_string(p);
      if (r.dpRank) b.meta().extra["BUBBLESCOPE_DP_RANK"] = std::to_string(*r.dpRank);
    }
    RankTrace done = b.finish(0);
    done.file = file_;
    done.meta.startNs = traceSpan(done).start;
    out.ranks.push_back(std::move(done));
  }
  if (!allStaged && anyTransfers) {
    out.notes.push_back(
        "the timeline's args name no stage, so transfers were imported without their peer stage");
  }
  return out;
}

}  // namespace bubblescope::traces::import
