#include "analyzer/export/perfetto_export.h"

#include "analyzer/export/device_tracks.h"

#include <algorithm>
#include <climits>
#include <map>
#include <string>
#include <vector>

namespace bubblescope::analysis {
namespace {

// Processes of ranks in no stage, after every stage's (pipeline * 1000 + stage + 1).
constexpr int kRankPidBase = 1'000'000;

// Chrome's reserved color names: chrome://tracing honours "cname", the Perfetto UI ignores it and
// colors a slice by a hash of its name with the digits left out (google/perfetto#208, #624).
const char* kindColor(OpKind k) {
  switch (k) {
    case OpKind::F:
      return "good";
    case OpKind::B:
      return "rail_response";
    case OpKind::W:
      return "rail_animation";
    case OpKind::BW:
      return "olive";
  }
  return "generic_work";
}

struct Slice {
  int pid = 0;
  std::string lane;  // thread name; overlapping slices of one lane get numbered sub-lanes
  std::string name, cat, color, args;  // args: the JSON object's members, without braces
  TimeNs start = 0, end = 0;
  int tid = 0;
};

struct Flow {
  int id = 0;
  std::string name;
  size_t fromIndex = 0, toIndex = 0;  // the send and receive slices
};

// "F mb=3", or "F mb=3 ch=0" in a job with chunks: every op of a kind has one name once Perfetto
// drops the digits, so one color.
std::string opLabel(const Op& op, bool chunked) {
  std::string s = std::string(engine::kindName(op.kind)) + " mb=" + std::to_string(op.mb);
  if (chunked) s += " ch=" + std::to_string(op.chunk);
  return s;
}

// Lanes per (process, lane name), so slices that overlap go to separate threads: the JSON
// importers need the slices of one thread to nest. nextTid: each process's next free thread id.
void assignThreads(std::vector<Slice>& slices, std::map<std::pair<int, int>, std::string>& names,
                   std::map<int, int>& nextTid) {
  std::vector<size_t> order(slices.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return slices[a].start < slices[b].start; });
  std::map<std::pair<int, std::string>, std::vector<std::pair<int, TimeNs>>> lanes;  // tid, end
  for (size_t i : order) {
    Slice& s = slices[i];
    auto& list = lanes[{s.pid, s.lane}];
    auto free =
        std::find_if(list.begin(), list.end(), [&](const auto& l) { return l.second <= s.start; });
    if (free == list.end()) {
      const int tid = nextTid.try_emplace(s.pid, 1).first->second++;
      names[{s.pid, tid}] = list.empty() ? s.lane : s.lane + " #" + std::to_string(list.size() + 1);
      list.push_back({tid, s.end});
      free = list.end() - 1;
    }
    free->second = std::max(free->second, s.end);
    s.tid = free->first;
  }
}

}  // namespace

PerfettoStats writePerfettoTrace(const traces::Run& run, const AnalysisResult& result,
                                 std::ostream& out, const PerfettoOptions& options) {
  std::vector<Slice> slices;
  std::vector<Flow> flows;
  std::map<int, std::string> processNames;
  const bool manyPipelines = result.pipelines.size() > 1;
  const bool chunked = std::ranges::any_of(result.pipelines, [](const PipelineResult& pl) {
    return std::ranges::any_of(pl.ops, [](const OpRecord& o) { return o.op.chunk != 0; });
  });
  auto pidOf = [](size_t pipeline, int stage) {
    return static_cast<int>(pipeline * 1000) + stage + 1;
  };
  std::vector<int> pidOfRank(run.ranks.size(), 0);  // the process holding a rank's device tracks

  for (size_t d = 0; d < result.pipelines.size(); ++d) {
    const PipelineResult& pl = result.pipelines[d];
    for (const StageResult& st : pl.stages) {
      const size_t index = static_cast<size_t>(st.rank);
      const int rank = index < run.ranks.size() && run.ranks[index].meta.rank >= 0
                           ? run.ranks[index].meta.rank
                           : st.rank;
      std::string name = "stage " + std::to_string(st.stage) + " (rank " + std::to_string(rank);
      if (manyPipelines) name += ", pipeline " + std::to_string(pl.dpRank);
      processNames[pidOf(d, st.stage)] = name + ")";
      for (int r : st.ranks) {
        if (r >= 0 && static_cast<size_t>(r) < pidOfRank.size()) pidOfRank[r] = pidOf(d, st.stage);
      }
    }
    for (size_t k = 0; k < pl.steps.size(); ++k) {
      const StepInfo& step = pl.steps[k];
      for (const StageResult& st : pl.stages) {
        slices.push_back({pidOf(d, st.stage), "steps", "step " + std::to_string(step.number),
                          "step", "generic_work",
                          "\"step\":" + std::to_string(step.number) +
                              ",\"duration_us\":" + microsText(step.duration()),
                          step.start, step.end});
      }
    }
    for (const OpRecord& o : pl.ops) {
      std::string args = "\"kind\":\"" + std::string(engine::kindName(o.op.kind)) +
                         "\",\"mb\":" + std::to_string(o.op.mb) +
                         ",\"chunk\":" + std::to_string(o.op.chunk) + ",\"step\":" +
                         std::to_string(o.step >= 0 && static_cast<size_t>(o.step) < pl.steps.size()
                                            ? pl.steps[o.step].number
                                            : -1) +
                         ",\"duration_us\":" + microsText(o.end - o.start) +
                         ",\"ideal_cost_us\":" + microsText(o.idealCost);
      slices.push_back({pidOf(d, o.stage), "ops", opLabel(o.op, chunked),
                        engine::kindName(o.op.kind), kindColor(o.op.kind), std::move(args), o.start,
                        o.end});
    }
    for (const Gap& g : pl.gaps) {
      std::string args = "\"idle_us\":" + microsText(g.idle) + ",\"class\":\"" +
                         idleClassKey(g.dominant) + "\",\"class_name\":\"" +
                         idleClassName(g.dominant) + "\"";
      for (int c = 0; c < kIdleClasses; ++c) {
        if (g.byClass[c] > 0) {
          args += ",\"" + std::string(idleClassKey(idleClassAt(c))) +
                  "_us\":" + microsText(g.byClass[c]);
        }
      }
      if (!g.blame.text.empty()) args += ",\"blame\":" + jsonString(g.blame.text);
      slices.push_back({pidOf(d, g.stage), "idle", idleClassKey(g.dominant), "idle",
                        idleClassInfo(g.dominant).chromeColor, std::move(args), g.start, g.end});
    }
    for (const TransferRecord& t : pl.transfers) {
      const std::string what = std::string(t.pass == OpKind::F ? "activations" : "gradients");
      const std::string label =
          std::string(engine::kindName(t.pass)) + " mb=" + std::to_string(t.mb);
      const std::string args = "\"data\":\"" + what + "\",\"mb\":" + std::to_string(t.mb) +
                               ",\"from_stage\":" + std::to_string(t.fromStage) +
                               ",\"to_stage\":" + std::to_string(t.toStage) +
                               ",\"transfer_us\":" + microsText(t.recvEnd - t.sendStart);
      Flow f;
      f.id = static_cast<int>(flows.size()) + 1;
      f.name = label;
      f.fromIndex = slices.size();
      slices.push_back({pidOf(d, t.fromStage), std::string("send ") + engine::kindName(t.pass),
                        "SEND " + label + " to " + std::to_string(t.toStage), "transfer",
                        "generic_work", args, t.sendStart, std::max(t.sendStart, t.sendEnd)});
      f.toIndex = slices.size();
      slices.push_back({pidOf(d, t.toStage), std::string("recv ") + engine::kindName(t.pass),
                        "RECV " + label + " from " + std::to_string(t.fromStage), "transfer",
                        "generic_work", args, t.recvStart, std::max(t.recvStart, t.recvEnd)});
      flows.push_back(std::move(f));
    }
  }

  const size_t stages = processNames.size();
  std::map<std::pair<int, int>, std::string> threadNames;
  std::map<int, int> nextTid;
  assignThreads(slices, threadNames, nextTid);
  TimeNs origin = INT64_MAX;
  for (const Slice& s : slices) origin = std::min(origin, s.start);
  if (options.deviceTracks) {
    // A rank in no stage (a job with no pipeline, a rank the pipelines left out): its own process.
    for (size_t r = 0; r < run.ranks.size(); ++r) {
      const traces::RankTrace& t = run.ranks[r];
      if (pidOfRank[r] != 0 || (t.kernels->size() == 0 && t.ncclCalls->size() == 0)) continue;
      pidOfRank[r] = kRankPidBase + static_cast<int>(r);
      processNames[pidOfRank[r]] =
          "rank " + std::to_string(t.meta.rank >= 0 ? t.meta.rank : static_cast<int>(r));
    }
    origin = std::min(origin, earliestDeviceTime(run, result.clock.offsets));
  }
  if (origin == INT64_MAX) origin = 0;

  out << "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"bubblescope\",\"origin_ns\":"
      << jsonString(std::to_string(origin)) << ",\"run\":" << jsonString(result.runDir)
      << "},\n\"traceEvents\":[\n";
  TraceEventWriter events(out, origin);
  for (const auto& [pid, name] : processNames) events.process(pid, name);
  for (const auto& [key, name] : threadNames) events.thread(key.first, key.second, name);
  for (const Slice& s : slices) {
    events.slice(s.pid, s.tid, s.name, s.cat, s.start, s.end, s.color, s.args);
  }
  // Flow arrows from the send slice to the receive slice, each end at its slice's middle.
  auto middle = [](const Slice& s) { return s.start + (s.end - s.start) / 2; };
  for (const Flow& f : flows) {
    const Slice& a = slices[f.fromIndex];
    const Slice& b = slices[f.toIndex];
    events.flow(false, f.id, f.name, a.pid, a.tid, middle(a));
    events.flow(true, f.id, f.name, b.pid, b.tid, middle(b));
  }
  PerfettoStats stats{slices.size(), flows.size(), stages};
  if (options.deviceTracks) {
    const DeviceTrackCounts device =
        writeDeviceTracks(run, result.clock.offsets, pidOfRank, nextTid, events);
    stats.kernels = device.kernels;
    stats.ncclCalls = device.ncclCalls;
  }
  out << "\n]}\n";
  return stats;
}

}  // namespace bubblescope::analysis
