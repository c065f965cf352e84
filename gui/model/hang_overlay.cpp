#include "gui/model/hang_overlay.h"

#include <algorithm>
#include <map>

#include "analyzer/hang/diagnose.h"
#include "analyzer/hang/stop_points.h"
#include "gui/timeline/ruler.h"

namespace bubblescope::gui {
namespace {

using analysis::hang::clockTime;
using analysis::hang::HangReport;
using analysis::hang::RankEnd;
using analysis::hang::RankStop;
using analysis::hang::Wait;

// The timeline extends a hung step this far (of the step's start to its last wait's start) past
// the last wait's start: the open boxes are seen to run on without their start squeezed aside.
constexpr double kFocusTail = 0.25;
constexpr TimeNs kMinFocusTail = 1'000'000;

std::string names(const HangReport& report, const std::vector<int>& ranks) {
  std::string out;
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (i > 0) out += i + 1 == ranks.size() ? " and " : ", ";
    const int r = ranks[i];
    out += r >= 0 && r < static_cast<int>(report.ranks.size()) ? report.ranks[r].label
                                                               : "rank " + std::to_string(r);
  }
  return out;
}

// "(1.51 s until stage 1 was last seen, at 12:03:07.260)"
std::string untilLastSeen(const RankStop& s, TimeNs since) {
  return "(" + formatDuration(s.aliveNs - since) + " until " + s.label + " was last seen, at " +
         clockTime(s.aliveNs) + ")";
}

// "\nin step 0: 8 ops of it done, the last F mb=5 (op #8 was next)", or "" outside any step.
std::string whereInStep(const RankStop& s) {
  if (s.step.empty()) return "";
  std::string out = "\nin " + s.step + ": " + std::to_string(s.opsInStep) + " ops of it done";
  if (!s.lastOp.empty()) out += ", the last " + s.lastOp;
  return out + " (op #" + std::to_string(s.opsInStep) + " was next)";
}

// The wait the report has for the open range `name` that began at `start`, if any.
const Wait* waitOfRange(const RankStop& s, const std::string& name, TimeNs start) {
  for (const Wait& w : s.waits) {
    if (!w.nccl && w.unwoundAt == 0 && w.what == name && w.since == start) return &w;
  }
  return nullptr;
}

struct Builder {
  const HangReport& report;
  const TimelineModel& model;
  const PipelineRows& rows;
  std::map<int, int> stageOfRank;  // run index -> index into rows.stages
  PipelineHang out;

  TimeNs aligned(int rank, TimeNs t) const { return t + model.clockOffset(rank); }

  // `word` and the mark's length lead its tag ("open 1.52 s: RECV B mb=3 from=2"): the view a
  // hung run opens at shows where the boxes start, not where they end.
  void add(HangMarkKind kind, const char* word, int stage, int rank, TimeNs start, TimeNs end,
           std::string what, std::string text) {
    HangMark m;
    m.kind = kind;
    m.stage = stage;
    m.rank = rank;
    m.start = aligned(rank, start);
    m.end = std::max(m.start, aligned(rank, end));
    m.tag =
        std::string(word) + " " + formatDuration(end - start) + (what.empty() ? "" : ": " + what);
    m.what = std::move(what);
    m.text = std::move(text);
    out.marks.push_back(std::move(m));
  }

  void openRanges(int stage, int rank, const RankStop& s) {
    const traces::RankTrace& t = model.run->ranks[rank];
    for (size_t k : analysis::hang::stillOpenRanges(t)) {
      const std::string name(t.strings.at(t.openRanges->name[k]));
      // The step the rank stopped in holds every op of it: it is said in the hover, not drawn.
      if (name == s.step) continue;
      const TimeNs start = t.openRanges->start[k];
      std::string text = s.label + " has " + name + " open since " + clockTime(start) + " " +
                         untilLastSeen(s, start);
      if (const Wait* w = waitOfRange(s, name, start); w && !w->on.empty()) {
        text += "\nit waits there for " + names(report, w->on);
      }
      add(HangMarkKind::OpenRange, "open", stage, rank, start, s.aliveNs, name,
          text + whereInStep(s));
    }
  }

  void waits(int stage, int rank, const RankStop& s) {
    for (const Wait& w : s.waits) {
      const std::string on = w.on.empty() ? "" : "\nit waits for " + names(report, w.on);
      if (w.nccl) {
        add(HangMarkKind::NcclWait, "open", stage, rank, w.since, s.aliveNs, w.what,
            s.label + " posted " + w.what + " at " + clockTime(w.since) +
                "; its partner never came " + untilLastSeen(s, w.since) + on);
      } else if (w.unwoundAt != 0) {
        add(HangMarkKind::Unwound, "unwound", stage, rank, w.since, w.unwoundAt, w.what,
            s.label + " waited in " + w.what + " from " + clockTime(w.since) +
                " until it unwound out of it at " + clockTime(w.unwoundAt) +
                " (its peer vanished)" + on + whereInStep(s));
      }
    }
  }

  void stopped(int stage, int rank, const RankStop& s, size_t marksBefore) {
    if (out.marks.size() != marksBefore) return;  // its open ranges or waits say where it is
    TimeNs from = s.lastOpEnd;
    const traces::RankTrace& t = model.run->ranks[rank];
    if (from == 0) {
      // No op finished: from where the step it stopped in began.
      for (size_t k : analysis::hang::stillOpenRanges(t)) {
        if (t.strings.at(t.openRanges->name[k]) == s.step) from = t.openRanges->start[k];
      }
    }
    if (from == 0 || from >= s.aliveNs) return;
    const bool died = s.end == RankEnd::Died;
    std::string text = s.label + (died ? " died" : " stopped") + " outside any wait";
    text += s.lastOp.empty() ? "" : " after " + s.lastOp + ", which ended at " + clockTime(from);
    text += "; last seen at " + clockTime(s.aliveNs) + whereInStep(s);
    add(HangMarkKind::Stopped, died ? "died" : "stopped", stage, rank, from, s.aliveNs, "",
        std::move(text));
  }

  void rank(int stage, int r) {
    const RankStop& s = report.ranks[r];
    if (s.end == RankEnd::Clean && s.waits.empty()) return;
    const size_t before = out.marks.size();
    openRanges(stage, r, s);
    waits(stage, r, s);
    if (s.end != RankEnd::Clean) stopped(stage, r, s, before);
    const auto& c = report.culprits;
    if (std::find(c.begin(), c.end(), r) != c.end()) {
      for (size_t i = before; i < out.marks.size(); ++i) {
        out.marks[i].text += "\n(the diagnosis names " + s.label + " first)";
      }
    }
    if (s.end == RankEnd::Clean) return;
    LastSeenMark m;
    m.stage = stage;
    m.rank = r;
    m.at = aligned(r, s.aliveNs);
    m.text = s.label + " was last seen at " + clockTime(s.aliveNs) + " (" +
             analysis::hang::rankEndName(s.end) + ")";
    out.latestSeen = std::max(out.latestSeen, m.at);
    out.lastSeen.push_back(std::move(m));
  }

  void arrows() {
    for (size_t e = 0; e < report.edges.size(); ++e) {
      const auto& edge = report.edges[e];
      const auto from = stageOfRank.find(edge.from), to = stageOfRank.find(edge.to);
      // An edge to another replica's rank, or within one stage's row (TP ranks), has no arrow.
      if (from == stageOfRank.end() || to == stageOfRank.end() || from->second == to->second) {
        continue;
      }
      const RankStop& s = report.ranks[edge.from];
      const Wait* wait = nullptr;
      for (const Wait& w : s.waits) {
        if (!wait && w.what == edge.what) wait = &w;
      }
      if (!wait) continue;
      WaitArrow a;
      a.edge = static_cast<int>(e);
      a.fromStage = from->second;
      a.toStage = to->second;
      a.at = aligned(edge.from, wait->since);
      a.text = s.label + " waits for " + report.ranks[edge.to].label + " since " +
               clockTime(wait->since) + " in " + edge.what + " " + untilLastSeen(s, wait->since);
      out.arrows.push_back(std::move(a));
    }
  }

  void focus() {
    TimeNs last = INT64_MIN, firstArrow = INT64_MAX;
    for (const HangMark& m : out.marks) last = std::max(last, m.start);
    for (const WaitArrow& a : out.arrows) {
      last = std::max(last, a.at);
      firstArrow = std::min(firstArrow, a.at);
    }
    if (last == INT64_MIN) return;
    const auto& steps = rows.result->steps;
    TimeNs start = steps.empty() ? rows.extent.start : steps.back().start;
    // From the earliest wait-for edge, where one began before the step (a receive posted in the
    // step before) or before anything the trace closed (ranks that waited from their start): an
    // arrow is drawn only inside the view, and the wait-for graph is the hang's answer.
    start = std::min({start, last, firstArrow});
    if (!steps.empty()) last = std::max(last, steps.back().end);
    const auto tail = static_cast<TimeNs>(kFocusTail * static_cast<double>(last - start));
    out.focus = {start, last + std::max(tail, kMinFocusTail)};
  }
};

}  // namespace

HangOverlay buildHangOverlay(const HangReport& report, const TimelineModel& model) {
  HangOverlay o;
  o.found = report.found();
  o.verdict = analysis::hang::verdictName(report.verdict);
  o.diagnosis = report.diagnosis;
  o.details = report.details;
  o.pipelines.resize(model.pipelines.size());
  if (!o.found || !model.run || report.ranks.size() != model.run->ranks.size()) return o;
  for (size_t p = 0; p < model.pipelines.size(); ++p) {
    const PipelineRows& rows = model.pipelines[p];
    Builder b{report, model, rows, {}, {}};
    for (size_t s = 0; s < rows.stages.size(); ++s) {
      for (int r : rows.result->stages[s].ranks) b.stageOfRank[r] = static_cast<int>(s);
    }
    for (const auto& [r, s] : b.stageOfRank) {
      if (r >= 0 && r < static_cast<int>(report.ranks.size())) b.rank(s, r);
    }
    std::stable_sort(b.out.marks.begin(), b.out.marks.end(), [](const auto& x, const auto& y) {
      return x.stage != y.stage ? x.stage < y.stage : x.start < y.start;
    });
    b.arrows();
    b.focus();
    o.pipelines[p] = std::move(b.out);
  }
  return o;
}

void extendToLastSeen(TimelineModel& model, const HangOverlay& overlay) {
  for (size_t p = 0; p < model.pipelines.size() && p < overlay.pipelines.size(); ++p) {
    Interval& e = model.pipelines[p].extent;
    e.end = std::max(e.end, overlay.pipelines[p].latestSeen);
    for (const HangMark& m : overlay.pipelines[p].marks) e.end = std::max(e.end, m.end);
  }
}

}  // namespace bubblescope::gui
