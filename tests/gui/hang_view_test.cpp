// The viewer's marks on a hung run (gui/model/hang_overlay, gui/draw/hang_records), on real engine
// runs recorded by the agent and stopped by the engine's watchdog: the open boxes are the ranges
// `bubblescope hang` says each rank had open, from their starts to its last sign of life; the red
// arrows are its wait-for graph's edges, from the waiting stage at the wait's start to the stage it
// waits on; a run with no pipeline recognised is still shown, a row per rank; a clean run has none.
// A hung run gets no what-if, only why.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "analyzer/analyze.h"
#include "analyzer/hang/diagnose.h"
#include "analyzer/result/errors.h"
#include "gui/draw/hang_records.h"
#include "gui/draw/row_layout.h"
#include "gui/model/rank_rows.h"
#include "gui/timeline/frame_geometry.h"
#include "gui/timeline/ruler.h"
#include "tests/analyzer/synthetic_run.h"
#include "tests/gui/hung_runs.h"

namespace bubblescope::gui {
namespace {

using analysis::hang::clockTime;
using testing::ViewedRun;

// The row (index into rows().stages) of the run's rank `rank`.
int stageOfRank(const ViewedRun& v, int rank) {
  const auto& stages = v.rows().result->stages;
  for (size_t s = 0; s < stages.size(); ++s) {
    for (int r : stages[s].ranks) {
      if (r == rank) return static_cast<int>(s);
    }
  }
  return -1;
}

int rankOfStage(const ViewedRun& v, int stage) {
  for (size_t r = 0; r < v.report.ranks.size(); ++r) {
    if (v.report.ranks[r].stage == stage) return static_cast<int>(r);
  }
  return -1;
}

void expectRecorded(const ViewedRun& v) {
  // The watchdog ends a hung run: exit 3, and the engine says so in its truth.json.
  ASSERT_FALSE(v.trace.ranks.empty()) << v.record.err;
  ASSERT_FALSE(v.model.pipelines.empty());
}

TEST(HangView, MismatchRunMarksWhatEachStageHadOpenUntilItWasLastSeen) {
  const ViewedRun& v = testing::mismatchRun();
  ASSERT_NO_FATAL_FAILURE(expectRecorded(v));
  ASSERT_EQ(v.record.exitCode, 3) << v.record.err;
  const auto& mm = v.truth["faults"]["mismatches"][0];
  ASSERT_TRUE(v.overlay.found);
  EXPECT_EQ(v.overlay.verdict, "deadlock");
  EXPECT_EQ(v.overlay.diagnosis, v.report.diagnosis);
  EXPECT_EQ(v.overlay.diagnosis.rfind(
                "deadlock: stage 1 waits in " + mm["stage_waits"].get<std::string>(), 0),
            0u)
      << v.overlay.diagnosis;

  // Per rank, the marks are exactly its open ranges (the step aside) as the report names them. A
  // rank the watchdog's SIGTERM reached late (at load) saw its neighbour's channel close first and
  // exited on its own: the report has it end cleanly, unwound out of the receive it was blocked in,
  // and that is what it is marked with.
  const PipelineHang& h = v.hang();
  ASSERT_EQ(v.report.ranks.size(), 4u);
  size_t stopped = 0;
  for (size_t r = 0; r < v.report.ranks.size(); ++r) {
    const auto& stop = v.report.ranks[r];
    const int stage = stageOfRank(v, static_cast<int>(r));
    ASSERT_GE(stage, 0);
    ASSERT_FALSE(stop.waits.empty()) << stop.label;
    const bool unwound = stop.waits[0].unwoundAt != 0;
    EXPECT_TRUE(unwound || stop.end != analysis::hang::RankEnd::Clean) << stop.label;
    stopped += stop.end == analysis::hang::RankEnd::Clean ? 0 : 1;
    std::vector<std::string> expected, drawn;
    if (unwound) {
      for (const auto& w : stop.waits) expected.push_back(w.what);
    } else {
      for (const std::string& name : stop.open) {
        if (name != stop.step) expected.push_back(name);
      }
    }
    for (const HangMark& m : h.marks) {
      if (m.rank != static_cast<int>(r)) continue;
      EXPECT_EQ(m.stage, stage);
      EXPECT_EQ(m.kind, unwound ? HangMarkKind::Unwound : HangMarkKind::OpenRange) << m.tag;
      const TimeNs end = unwound ? stop.waits[0].unwoundAt : stop.aliveNs;
      EXPECT_EQ(m.end, end + v.model.clockOffset(static_cast<int>(r))) << m.tag;
      // Tagged open (or unwound), for as long as it was open before the rank was last seen (or
      // unwound out of it).
      EXPECT_EQ(m.tag, std::string(unwound ? "unwound " : "open ") +
                           formatDuration(m.end - m.start) + ": " + m.what);
      drawn.push_back(m.what);
    }
    EXPECT_EQ(drawn, expected) << stop.label;
    // The receive it is blocked in starts where the report says its wait began.
    const auto it = std::find_if(h.marks.begin(), h.marks.end(), [&](const HangMark& m) {
      return m.rank == static_cast<int>(r) && m.what == stop.waits[0].what;
    });
    ASSERT_NE(it, h.marks.end()) << stop.label;
    EXPECT_EQ(it->start, stop.waits[0].since + v.model.clockOffset(static_cast<int>(r)));
    EXPECT_NE(it->text.find(clockTime(stop.waits[0].since)), std::string::npos) << it->text;
  }
  // The engine's account: stage 1 waits in stage_waits for stage 2, stage 2 in peer_waits for 1.
  const int s = mm["stage"], peer = mm["peer"];
  for (const auto& [stage, what, on] : {std::tuple{s, mm["stage_waits"].get<std::string>(), peer},
                                        std::tuple{peer, mm["peer_waits"].get<std::string>(), s}}) {
    const auto it = std::find_if(h.marks.begin(), h.marks.end(), [&](const HangMark& m) {
      return m.stage == stageOfRank(v, rankOfStage(v, stage)) && m.what == what;
    });
    ASSERT_NE(it, h.marks.end()) << "stage " << stage << " " << what;
    // "it waits there for stage 2" on an open box, "it waits for stage 2" on an unwound one.
    EXPECT_NE(it->text.find("waits"), std::string::npos) << it->text;
    EXPECT_NE(it->text.find(" for stage " + std::to_string(on)), std::string::npos) << it->text;
  }
  // Every stage the watchdog stopped was last seen, once; one that exited has no bar.
  ASSERT_EQ(h.lastSeen.size(), stopped);
  std::set<int> seen;
  for (const LastSeenMark& m : h.lastSeen) {
    seen.insert(m.stage);
    EXPECT_EQ(m.at, v.report.ranks[m.rank].aliveNs + v.model.clockOffset(m.rank));
    EXPECT_NE(m.text.find("(stopped)"), std::string::npos) << m.text;
  }
  EXPECT_EQ(seen.size(), stopped);
  EXPECT_GE(stopped, 1u);
}

TEST(HangView, RedArrowsAreTheWaitForGraphsEdgesFromEachWaitsStart) {
  const ViewedRun& v = testing::mismatchRun();
  ASSERT_NO_FATAL_FAILURE(expectRecorded(v));
  const PipelineHang& h = v.hang();
  ASSERT_EQ(h.arrows.size(), v.report.edges.size());
  ASSERT_EQ(h.arrows.size(), 4u);  // every stage waits on a neighbour
  std::set<std::pair<int, int>> pairs;
  for (const WaitArrow& a : h.arrows) {
    const auto& e = v.report.edges[a.edge];
    EXPECT_EQ(a.fromStage, stageOfRank(v, e.from));
    EXPECT_EQ(a.toStage, stageOfRank(v, e.to));
    const auto& from = v.report.ranks[e.from];
    EXPECT_EQ(a.at, from.waits[0].since + v.model.clockOffset(e.from));
    EXPECT_EQ(a.text.rfind(from.label + " waits for " + v.report.ranks[e.to].label + " since " +
                               clockTime(from.waits[0].since) + " in " + e.what,
                           0),
              0u)
        << a.text;
    pairs.insert({v.report.ranks[e.from].stage, v.report.ranks[e.to].stage});
  }
  const auto& mm = v.truth["faults"]["mismatches"][0];
  const int s = mm["stage"], peer = mm["peer"];
  EXPECT_TRUE(pairs.count({s, peer}));  // the cycle, both ways
  EXPECT_TRUE(pairs.count({peer, s}));
}

TEST(HangView, HungRunOpensOnTheHangAndItsExtentReachesTheLastSignOfLife) {
  const ViewedRun& v = testing::mismatchRun();
  ASSERT_NO_FATAL_FAILURE(expectRecorded(v));
  const PipelineHang& h = v.hang();
  const auto& steps = v.rows().result->steps;
  ASSERT_FALSE(steps.empty());
  EXPECT_EQ(h.focus.start, steps.back().start);
  for (const WaitArrow& a : h.arrows) {
    EXPECT_LT(a.at, h.focus.end);
    EXPECT_GE(a.at, h.focus.start);
  }
  // A quarter of the step past the last wait's start: the boxes run on, the ops stay readable.
  EXPECT_LT(h.focus.end - h.focus.start, 2 * (steps.back().end - steps.back().start));
  // Fit run reaches the last sign of life, past the step's end: the ranks lived on, waiting. It
  // is the trace's own extent taken on to the latest last-seen bar: a rank that exited on its own
  // as its neighbour's channel closed (at load the watchdog's SIGTERM may reach it later) has no
  // bar, and what it recorded as it went may end later still.
  TimeNs last = 0;
  for (const LastSeenMark& m : h.lastSeen) last = std::max(last, m.at);
  const TimeNs traced = buildTimelineModel(v.trace, v.result).pipelines.front().extent.end;
  EXPECT_EQ(v.rows().extent.end, std::max(last, traced));
  EXPECT_GT(v.rows().extent.end, steps.back().end);
}

struct Frame {
  RowLayout layout;
  TimeMapping m;
  HangRecords records;
};

Frame frame(const ViewedRun& v, TimeNs from, TimeNs to) {
  Frame f;
  const FrameGeometry g = frameGeometry(1600, 900, 1, true, kHangBannerH);
  const PaneGeometry& pane = g.panes[0];
  f.m = TimeMapping{from, to, pane.plot.x0, pane.plot.w()};
  f.layout = layoutRows(v.rows(), {}, RowHeights{}, pane.plot.y0, 0, pane.plot.h());
  buildHangRecords(v.hang(), f.layout, f.m, RecordStyle{}, f.records);
  return f;
}

// Two waits a few ms apart between the same two rows are drawn a few pixels apart: the pointer
// reads the arrow it is on, the nearer one, whichever comes first in the list.
TEST(HangView, ThePointerReadsTheNearestOfTwoCloseArrows) {
  PipelineHang h;
  h.arrows.push_back(WaitArrow{0, 1, 2, 0, "stage 1 waits for stage 2"});
  h.arrows.push_back(WaitArrow{1, 2, 1, 0, "stage 2 waits for stage 1"});
  HangRecords r;
  r.arrows.push_back(WaitArrowRecord{100, 50, 100, 80, 0});
  r.arrows.push_back(WaitArrowRecord{103, 80, 103, 50, 1});
  for (const auto& [x, want] : {std::pair{100.0, 0}, std::pair{101.0, 0}, std::pair{102.0, 1},
                                std::pair{103.0, 1}, std::pair{106.5, 1}}) {
    const std::string* text = hangTextAt(h, r, x, 65);
    ASSERT_NE(text, nullptr) << x;
    EXPECT_EQ(*text, h.arrows[static_cast<size_t>(want)].text) << x;
  }
  EXPECT_EQ(hangTextAt(h, r, 110, 65), nullptr);
}

TEST(HangView, RecordsPutOpenBoxesOnTheirStagesRowAndArrowsBetweenTheRows) {
  const ViewedRun& v = testing::mismatchRun();
  ASSERT_NO_FATAL_FAILURE(expectRecorded(v));
  const PipelineHang& h = v.hang();
  const Frame f = frame(v, h.focus.start, h.focus.end);
  ASSERT_EQ(f.records.boxes.size(), h.marks.size());
  for (const HangBox& b : f.records.boxes) {
    const HangMark& m = h.marks[b.mark];
    EXPECT_EQ(b.y0, static_cast<float>(f.layout.opsY[m.stage]));
    EXPECT_NEAR(b.x0, f.m.x(m.start), 0.5);
    // To where the mark ends (its rank's last sign of life, or where it unwound), past the view
    // when that is: the run's own times, not the watchdog's 2 s, which at load the run may have
    // spent mostly before the hang (its last signs of life then fall inside the view).
    if (m.end > f.m.end) {
      EXPECT_GT(b.x1, f.m.x0 + f.m.width) << "to the end of the mark, past the view";
    } else {
      EXPECT_NEAR(b.x1, std::max(f.m.x(m.end), static_cast<double>(b.x0) + 2), 0.5) << m.tag;
    }
    // A stage the watchdog's SIGTERM reached late (at load) exited on its own as its
    // neighbour's channel closed: its box is the receive it unwound out of, plain; every other
    // box is open, hatched.
    if (m.kind == HangMarkKind::Unwound) {
      EXPECT_FALSE(b.hatched);
      EXPECT_EQ(b.fill, kHangUnwoundFill);
      EXPECT_EQ(b.label.rfind("unwound ", 0), 0u) << b.label;
      continue;
    }
    EXPECT_EQ(m.kind, HangMarkKind::OpenRange) << m.tag;
    EXPECT_TRUE(b.hatched);
    EXPECT_EQ(b.fill, kHangOpenFill);
    EXPECT_EQ(b.label.rfind("open ", 0), 0u) << b.label;
    // The hover over the box's tag is the mark's text.
    const std::string* text = hangTextAt(h, f.records, b.labelX + 20, (b.y0 + b.y1) / 2);
    ASSERT_NE(text, nullptr);
    EXPECT_EQ(*text, m.text);
  }
  // A last-seen bar is drawn where it is in view, and only there.
  size_t inView = 0;
  for (const LastSeenMark& k : h.lastSeen) inView += k.at >= f.m.start && k.at <= f.m.end ? 1 : 0;
  EXPECT_EQ(f.records.lastSeen.size(), inView);
  for (const LastSeenBar& b : f.records.lastSeen) {
    EXPECT_NEAR(b.x, f.m.x(h.lastSeen[b.mark].at), 0.5);
  }
  ASSERT_EQ(f.records.arrows.size(), h.arrows.size());
  for (const WaitArrowRecord& r : f.records.arrows) {
    const WaitArrow& a = h.arrows[r.arrow];
    const bool down = a.toStage > a.fromStage;
    EXPECT_NEAR(r.x0, f.m.x(a.at) + (down ? -kWaitArrowSpreadPx : kWaitArrowSpreadPx), 0.5);
    EXPECT_EQ(r.x1, r.x0);
    EXPECT_EQ(r.y0, static_cast<float>(f.layout.opsY[a.fromStage] + f.layout.opsH / 2));
    EXPECT_EQ(r.y1, static_cast<float>(down ? f.layout.opsY[a.toStage]
                                            : f.layout.opsY[a.toStage] + f.layout.opsH));
    // The pointer on the arrow reads its text; two waits a few ms apart are drawn a few pixels
    // apart (at load the two of a mismatch can be), and the nearer one is read. Only an arrow
    // drawn on the very same pixels as another may read either.
    const std::string* text = hangTextAt(h, f.records, r.x0, (r.y0 + r.y1) / 2);
    ASSERT_NE(text, nullptr);
    bool sameSpot = false;
    for (const WaitArrowRecord& o : f.records.arrows) {
      sameSpot = sameSpot ||
                 (o.arrow != r.arrow && o.x0 == r.x0 && std::min(o.y0, o.y1) <= (r.y0 + r.y1) / 2 &&
                  (r.y0 + r.y1) / 2 <= std::max(o.y0, o.y1) && *text == h.arrows[o.arrow].text);
    }
    if (!sameSpot) {
      EXPECT_EQ(*text, a.text);
    }
  }
  // Zoomed out to the whole run, the last-seen bars are in view: one on the row of every stage
  // the watchdog stopped (one that exited on its own has none), and the watchdog stopped one.
  const Frame all = frame(v, v.rows().extent.start, v.rows().extent.end);
  size_t stopped = 0;
  for (const auto& stop : v.report.ranks) {
    stopped += stop.end == analysis::hang::RankEnd::Clean ? 0 : 1;
  }
  EXPECT_EQ(all.records.lastSeen.size(), stopped);
  EXPECT_GE(stopped, 1u);
}

TEST(HangView, RunWithoutAPipelineIsShownARowPerRankWithWhereEachStopped) {
  const ViewedRun& v = testing::hangBeforeAnyOpRun();
  ASSERT_NO_FATAL_FAILURE(expectRecorded(v));
  // The analysis cannot make a pipeline of it: the viewer used to refuse it with this error.
  EXPECT_THROW(analysis::analyzeRun(v.trace), analysis::AnalysisInputError);
  ASSERT_TRUE(v.overlay.found);
  EXPECT_EQ(v.overlay.verdict, "never-arrived") << v.overlay.diagnosis;
  ASSERT_EQ(v.rows().stages.size(), v.trace.ranks.size());
  // A rank blocked in its first receive finished nothing: its trace holds only where it waits.
  for (size_t s = 0; s < v.rows().stages.size(); ++s) {
    if (v.trace.ranks[s].eventCount() == 0) continue;
    EXPECT_FALSE(v.rows().stages[s].detail.empty()) << "its raw trace, stage row " << s;
  }
  const PipelineHang& h = v.hang();
  const int culprit = v.report.culprits.at(0);
  EXPECT_EQ(v.report.ranks[culprit].stage, 1);  // --hang 1:0
  // The culprit has nothing open but its step: it is marked where it stopped.
  const auto stopped = std::find_if(h.marks.begin(), h.marks.end(), [&](const HangMark& m) {
    return m.rank == culprit && m.kind == HangMarkKind::Stopped;
  });
  ASSERT_NE(stopped, h.marks.end());
  EXPECT_EQ(stopped->tag.rfind("stopped ", 0), 0u) << stopped->tag;
  EXPECT_EQ(stopped->end, v.report.ranks[culprit].aliveNs);
  EXPECT_NE(stopped->text.find("(the diagnosis names stage 1 first)"), std::string::npos)
      << stopped->text;
  // Stage 0 waits on it: its open receive and the arrow to the culprit's row.
  const int waiter = rankOfStage(v, 0);
  ASSERT_GE(waiter, 0);
  const auto& waits = v.report.ranks[waiter].waits;
  ASSERT_FALSE(waits.empty());
  EXPECT_TRUE(std::any_of(h.marks.begin(), h.marks.end(), [&](const HangMark& m) {
    return m.rank == waiter && m.what == waits[0].what && m.start == waits[0].since;
  }));
  // One arrow per edge: stage 0 and stage 2 wait on stage 1, stage 3 on stage 2.
  ASSERT_EQ(h.arrows.size(), v.report.edges.size());
  ASSERT_EQ(h.arrows.size(), 3u);
  const auto arrow = std::find_if(h.arrows.begin(), h.arrows.end(), [&](const auto& a) {
    return a.fromStage == stageOfRank(v, waiter);
  });
  ASSERT_NE(arrow, h.arrows.end());
  EXPECT_EQ(arrow->toStage, stageOfRank(v, culprit));
  EXPECT_EQ(arrow->at, waits[0].since);  // no clock alignment without a pipeline
}

TEST(HangView, CrashedStageIsMarkedDiedAfterItsLastOp) {
  const ViewedRun& v = testing::crashRun();
  ASSERT_NO_FATAL_FAILURE(expectRecorded(v));
  ASSERT_TRUE(v.overlay.found);
  EXPECT_EQ(v.overlay.verdict, "dead-rank") << v.overlay.diagnosis;
  const int dead = rankOfStage(v, 2);
  ASSERT_EQ(v.report.ranks[dead].end, analysis::hang::RankEnd::Died);
  const PipelineHang& h = v.hang();
  const auto died = std::find_if(h.marks.begin(), h.marks.end(), [&](const HangMark& m) {
    return m.rank == dead && m.kind == HangMarkKind::Stopped;
  });
  ASSERT_NE(died, h.marks.end());
  EXPECT_EQ(died->tag.rfind("died ", 0), 0u) << died->tag;
  EXPECT_EQ(died->stage, stageOfRank(v, dead));
  EXPECT_EQ(died->start,
            v.report.ranks[dead].lastOpEnd + v.model.clockOffset(dead));  // after its last op
  for (const LastSeenMark& m : h.lastSeen) {
    if (m.rank != dead) continue;
    EXPECT_NE(m.text.find("(died)"), std::string::npos) << m.text;
  }
  // Every other mark is a range the report has open on its rank.
  for (const HangMark& m : h.marks) {
    if (m.kind != HangMarkKind::OpenRange) continue;
    const auto& open = v.report.ranks[m.rank].open;
    EXPECT_NE(std::find(open.begin(), open.end(), m.what), open.end()) << m.what;
  }
}

TEST(HangView, CleanRunHasNoMarks) {
  const ViewedRun& v = testing::cleanRun();
  ASSERT_NO_FATAL_FAILURE(expectRecorded(v));
  ASSERT_EQ(v.record.exitCode, 0) << v.record.err;
  EXPECT_FALSE(v.overlay.found);
  EXPECT_EQ(v.overlay.verdict, "clean");
  ASSERT_EQ(v.overlay.pipelines.size(), v.model.pipelines.size());
  for (const PipelineHang& h : v.overlay.pipelines) EXPECT_TRUE(h.empty());
}

TEST(HangView, HungRunsGetNoWhatIfButSayWhyAndTheCleanRunGetsIt) {
  // None of these finished a step; negative bubbles and 0.6x speedups came of comparing their cut
  // step with whole schedules.
  for (const ViewedRun* v :
       {&testing::mismatchRun(), &testing::crashRun(), &testing::hangBeforeAnyOpRun()}) {
    ASSERT_NO_FATAL_FAILURE(expectRecorded(*v));
    for (const analysis::PipelineResult& pl : v->result.pipelines) {
      EXPECT_TRUE(pl.whatIf.empty()) << v->run;
      EXPECT_NE(pl.whatIfWithheld, "") << v->run;
    }
  }
  const ViewedRun& clean = testing::cleanRun();
  ASSERT_NO_FATAL_FAILURE(expectRecorded(clean));
  EXPECT_FALSE(clean.result.pipelines.front().whatIf.empty());
  EXPECT_EQ(clean.result.pipelines.front().whatIfWithheld, "");
}

// Steps that finished before the hang are not the run's answer either: the viewer shows the hang.
// A run the hang analysis finds only stopped (killed, no rank waiting) keeps its what-ifs.
TEST(HangView, RunThatHungAfterFinishedStepsGetsNoWhatIfUnlessItWasOnlyStopped) {
  testing::SyntheticJob job;
  job.schedule = engine::Schedule::oneF1B(4, 8);
  const traces::Run run = testing::synthesize(job);
  analysis::hang::HangReport report;
  report.verdict = analysis::hang::Verdict::Deadlock;
  const analysis::AnalysisResult hung = analyzeForView(run, report, {});
  ASSERT_EQ(hung.pipelines.size(), 1u);
  EXPECT_TRUE(hung.pipelines[0].whatIf.empty());
  EXPECT_EQ(hung.pipelines[0].whatIfWithheld.rfind("the run hung (deadlock): ", 0), 0u)
      << hung.pipelines[0].whatIfWithheld;

  report.verdict = analysis::hang::Verdict::Stopped;
  const analysis::AnalysisResult stopped = analyzeForView(run, report, {});
  EXPECT_FALSE(stopped.pipelines[0].whatIf.empty());
  EXPECT_EQ(stopped.pipelines[0].whatIfWithheld, "");
}

// A run of three ranks, one a stage, with no events: the hand-made reports' pipeline.
struct ThreeStages {
  traces::Run run;
  analysis::AnalysisResult result;
  ThreeStages() {
    run.ranks.resize(3);
    result.pipelines.resize(1);
    for (int r = 0; r < 3; ++r) {
      analysis::StageResult st;
      st.stage = r;
      st.rank = r;
      st.ranks = {r};
      result.pipelines[0].stages.push_back(st);
    }
  }
};

// The report's ranks 0-2 as stages 0-2, each last seen at `aliveNs`.
void threeRanks(analysis::hang::HangReport& report, TimeNs aliveNs) {
  report.ranks.resize(3);
  for (int r = 0; r < 3; ++r) {
    report.ranks[r].rank = report.ranks[r].stage = r;
    report.ranks[r].label = "stage " + std::to_string(r);
    report.ranks[r].aliveNs = aliveNs;
  }
}

// A hand-made report (the shapes the engine runs above do not make): rank 0 posted an ncclRecv
// whose send never came, rank 1 unwound out of its receive as rank 2 died outside any wait.
TEST(HangOverlay, NcclCallsWithoutPartnerUnwoundReceivesAndDeathsAreMarkedOnTheirRows) {
  using namespace analysis::hang;
  ThreeStages j;
  traces::Run& run = j.run;
  analysis::AnalysisResult& result = j.result;
  result.clock.offsets = {0, 100, 0};  // rank 1's clock is put 100 ns later by the alignment
  const TimelineModel model = buildTimelineModel(run, result);
  HangReport report;
  report.verdict = Verdict::DeadRank;
  report.diagnosis = "stage 2 died: ...";
  report.culprits = {2};
  threeRanks(report, 10'000);
  report.ranks[0].waits = {{"ncclRecv peer=1 count=4 comm=0x1", 2'000, {1}, true, 0}};
  report.ranks[1].waits = {{"RECV F mb=0 from=2", 3'000, {2}, false, 9'000}};
  report.ranks[2].end = RankEnd::Died;
  report.ranks[2].aliveNs = 6'000;
  report.ranks[2].lastOp = "F mb=0";
  report.ranks[2].lastOpEnd = 5'000;
  report.edges = {{0, 1, report.ranks[0].waits[0].what}, {1, 2, report.ranks[1].waits[0].what}};

  const HangOverlay o = buildHangOverlay(report, model);
  ASSERT_TRUE(o.found);
  const PipelineHang& h = o.pipelines.at(0);
  ASSERT_EQ(h.marks.size(), 3u);
  EXPECT_EQ(h.marks[0].kind, HangMarkKind::NcclWait);
  EXPECT_EQ(h.marks[0].stage, 0);
  EXPECT_EQ(h.marks[0].start, 2'000);
  EXPECT_EQ(h.marks[0].end, 10'000);  // posted, never answered, to its last sign of life
  EXPECT_EQ(h.marks[0].tag, "open 8.00 µs: ncclRecv peer=1 count=4 comm=0x1");
  EXPECT_EQ(h.marks[1].kind, HangMarkKind::Unwound);
  EXPECT_EQ(h.marks[1].start, 3'100);  // on the aligned clock
  EXPECT_EQ(h.marks[1].end, 9'100);    // to the unwind, not to the last sign of life
  EXPECT_EQ(h.marks[1].tag.rfind("unwound 6.00 µs: RECV F mb=0 from=2", 0), 0u);
  EXPECT_EQ(h.marks[2].kind, HangMarkKind::Stopped);
  EXPECT_EQ(h.marks[2].tag, "died 1.00 µs");
  EXPECT_EQ(h.marks[2].start, 5'000);  // from its last op's end
  EXPECT_NE(h.marks[2].text.find("(the diagnosis names stage 2 first)"), std::string::npos);
  ASSERT_EQ(h.arrows.size(), 2u);
  EXPECT_EQ(h.arrows[1].fromStage, 1);
  EXPECT_EQ(h.arrows[1].toStage, 2);
  EXPECT_EQ(h.arrows[1].at, 3'100);
  ASSERT_EQ(h.lastSeen.size(), 3u);
  EXPECT_NE(h.lastSeen[2].text.find("(died)"), std::string::npos) << h.lastSeen[2].text;
}

// A wait can begin before the hung step (a receive posted in the step before) or before anything
// the trace closed (a run without a pipeline: ranks that waited from their start): the view a
// hung run opens at still holds every wait-for arrow, where it opened at the step's start, or at
// its latest wait, and an earlier wait's arrow was left out of the frame.
TEST(HangOverlay, TheViewAHungRunOpensAtHoldsEveryWaitForArrow) {
  using namespace analysis::hang;
  ThreeStages j;
  traces::Run& run = j.run;
  analysis::AnalysisResult& result = j.result;
  constexpr TimeNs kMs = 1'000'000;
  result.pipelines[0].steps = {{0, 1 * kMs, 4 * kMs}, {1, 5 * kMs, 8 * kMs}};
  const TimelineModel model = buildTimelineModel(run, result);
  HangReport report;
  report.verdict = Verdict::NeverArrived;
  report.diagnosis = "stage 2 never sent ...";
  report.culprits = {2};
  threeRanks(report, 20 * kMs);
  // Stage 0 posted its receive in the step before the hung one; stage 1 in it.
  report.ranks[0].waits = {{"ncclRecv peer=1 count=4 comm=0x1", 3 * kMs + kMs / 2, {1}, true, 0}};
  report.ranks[1].waits = {{"ncclRecv peer=2 count=4 comm=0x1", 6 * kMs, {2}, true, 0}};
  report.edges = {{0, 1, report.ranks[0].waits[0].what}, {1, 2, report.ranks[1].waits[0].what}};

  const HangOverlay o = buildHangOverlay(report, model);
  ASSERT_TRUE(o.found);
  const PipelineHang& h = o.pipelines.at(0);
  ASSERT_EQ(h.arrows.size(), 2u);
  EXPECT_EQ(h.focus.start, 3 * kMs + kMs / 2);  // the earlier wait's start, before the hung step's
  for (const WaitArrow& a : h.arrows) {
    EXPECT_GE(a.at, h.focus.start) << a.text;
    EXPECT_LT(a.at, h.focus.end) << a.text;
  }
  // And drawn in the frame the viewer opens on.
  const TimeMapping view = fitTo({}, h.focus.start, h.focus.end, 0.02);
  PipelineRows rows;
  rows.stages.resize(3);
  const RowLayout layout = layoutRows(rows, {}, RowHeights{}, 0, 0, 600);
  HangRecords records;
  buildHangRecords(h, layout, view, RecordStyle{}, records);
  EXPECT_EQ(records.arrows.size(), 2u);
}

// Hand-made marks: what is drawn where, independent of any recording.
PipelineRows threeStages() {
  PipelineRows p;
  p.stages.resize(3);
  return p;
}

TEST(HangRecords, OppositeArrowsAtOneMomentStayApartAndOutOfViewOnesAreLeftOut) {
  const PipelineRows rows = threeStages();
  const RowLayout layout = layoutRows(rows, {}, RowHeights{}, 100, 0, 600);
  const TimeMapping m{0, 1000, 200, 1000};  // 1 px per ns
  PipelineHang h;
  h.arrows = {{0, 0, 1, 500, "down"}, {1, 1, 0, 500, "up"}, {2, 0, 2, 1500, "later"}};
  h.marks = {{HangMarkKind::OpenRange, 1, 1, -400, 5000, "RECV", "open: RECV", "t"},
             {HangMarkKind::Unwound, 2, 2, 2000, 3000, "RECV", "unwound", "u"}};
  h.lastSeen = {{1, 1, 800, "seen"}};
  HangRecords r;
  buildHangRecords(h, layout, m, RecordStyle{}, r);
  ASSERT_EQ(r.arrows.size(), 2u);
  EXPECT_FLOAT_EQ(r.arrows[0].x0, 700 - kWaitArrowSpreadPx);
  EXPECT_FLOAT_EQ(r.arrows[1].x0, 700 + kWaitArrowSpreadPx);
  EXPECT_LT(r.arrows[0].y0, r.arrows[0].y1);  // down: from stage 0's middle to stage 1's top
  EXPECT_EQ(r.arrows[0].y1, static_cast<float>(layout.opsY[1]));
  EXPECT_EQ(r.arrows[1].y1, static_cast<float>(layout.opsY[0] + layout.opsH));
  // The open box began before the view and runs past it: its tag stays in sight at the left.
  ASSERT_EQ(r.boxes.size(), 1u);
  EXPECT_LT(r.boxes[0].x0, m.x0);
  EXPECT_GT(r.boxes[0].x1, m.x0 + m.width);
  EXPECT_FLOAT_EQ(r.boxes[0].labelX, static_cast<float>(m.x0 + 3));
  EXPECT_EQ(r.boxes[0].label, "open: RECV");
  ASSERT_EQ(r.lastSeen.size(), 1u);
  EXPECT_FLOAT_EQ(r.lastSeen[0].x, 1000);
  EXPECT_EQ(*hangTextAt(h, r, 1000, layout.opsY[1] + 5), "seen");  // the bar, over the box
  EXPECT_EQ(*hangTextAt(h, r, 900, layout.opsY[1] + 5), "t");
  EXPECT_EQ(hangTextAt(h, r, 900, layout.opsY[2] + 5), nullptr);
}

TEST(HangRecords, FillsSayOpenUnwoundOrStopped) {
  EXPECT_EQ(hangFill(HangMarkKind::OpenRange), kHangOpenFill);
  EXPECT_EQ(hangFill(HangMarkKind::NcclWait), kHangOpenFill);
  EXPECT_EQ(hangFill(HangMarkKind::Unwound), kHangUnwoundFill);
  EXPECT_EQ(hangFill(HangMarkKind::Stopped), kHangStoppedFill);
  // The arrows' red is none of the idle classes' reds: a wait never reads as a stall.
  for (int c = 0; c < analysis::kIdleClasses; ++c) {
    EXPECT_NE(idleColor(analysis::idleClassAt(c)), kHangRed);
  }
}

TEST(FrameGeometry, HangBannerSitsUnderTheToolbarAndPushesThePaneDown) {
  const FrameGeometry plain = frameGeometry(1600, 900, 1, true);
  const FrameGeometry hung = frameGeometry(1600, 900, 1, true, kHangBannerH);
  EXPECT_EQ(plain.banner.h(), 0);
  EXPECT_EQ(hung.banner.y0, kToolbarH);
  EXPECT_EQ(hung.banner.h(), kHangBannerH);
  EXPECT_EQ(hung.banner.x1, hung.panel.x0);
  EXPECT_EQ(hung.panes[0].ruler.y0, plain.panes[0].ruler.y0 + kHangBannerH);
  EXPECT_EQ(hung.panes[0].plot.y1, 900);
  EXPECT_EQ(hung.panel.y0, plain.panel.y0);
}

}  // namespace
}  // namespace bubblescope::gui
