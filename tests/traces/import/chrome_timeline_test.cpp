// Generic Chrome-trace timelines (op-level, pid = rank): one rank per pid, Megatron timer names
// with a microbatch rewritten into the bubblescope convention, steps from args.
#include <gtest/gtest.h>

#include <set>

#include "traces/import/chrome_json/chrome_trace_import.h"
#include "traces/import/chrome_json/timeline/timeline_builder.h"

namespace bubblescope::traces::import {
namespace {

ImportedFile importText(const std::string& json) {
  ByteSource source(json, "timeline.json");
  return importChromeTrace(source);
}

std::set<std::string> names(const RankTrace& t) {
  std::set<std::string> out;
  for (StringId n : t.ranges->name) out.emplace(t.strings.at(n));
  return out;
}

TEST(ChromeTimeline, MegatronTimerNamesWithMicrobatchesBecomeConventionLabels) {
  TraceEventArgs a;
  a.mb = 3;
  a.chunk = 1;
  EXPECT_EQ(conventionLabel("forward-compute", a, -1), "F mb=3 ch=1");
  EXPECT_EQ(conventionLabel("backward-compute", a, -1), "BW mb=3 ch=1");
  EXPECT_EQ(conventionLabel("forward-send", a, 2), "SEND F mb=3 ch=1 to=2");
  EXPECT_EQ(conventionLabel("backward-recv", a, 0), "RECV B mb=3 ch=1 from=0");
  EXPECT_EQ(conventionLabel("optimizer", a, -1), std::nullopt);
  a.mb.reset();
  EXPECT_EQ(conventionLabel("forward-compute", a, -1), std::nullopt);
}

TEST(ChromeTimeline, EachPidIsARankWithStepsAndPeersFromArgs) {
  const ImportedFile f = importText(R"J([
    {"ph": "X", "name": "forward-compute", "pid": 0, "tid": 1, "ts": 0, "dur": 10,
     "args": {"mb_id": 0, "model_chunk": 0, "step": 7, "stage": 0}},
    {"ph": "X", "name": "forward-send", "pid": 0, "tid": 2, "ts": 10, "dur": 1,
     "args": {"mb_id": 0, "model_chunk": 0, "step": 7, "stage": 0}},
    {"ph": "X", "name": "forward-recv", "pid": 1, "tid": 1, "ts": 10, "dur": 2,
     "args": {"mb_id": 0, "model_chunk": 0, "step": 7, "stage": 1}},
    {"ph": "X", "name": "forward-compute", "pid": 1, "tid": 1, "ts": 12, "dur": 10,
     "args": {"mb_id": 0, "model_chunk": 0, "step": 7, "stage": 1}},
    {"ph": "X", "name": "optimizer", "pid": 1, "tid": 1, "ts": 30, "dur": 5, "args": {"step": 7}}
  ])J");
  EXPECT_EQ(f.format, "chrome-trace");
  ASSERT_EQ(f.ranks.size(), 2u);
  const RankTrace& r0 = f.ranks[0];
  const RankTrace& r1 = f.ranks[1];
  EXPECT_EQ(r0.meta.rank, 0);
  EXPECT_EQ(r1.meta.rank, 1);
  EXPECT_EQ(names(r0), (std::set<std::string>{"F mb=0", "SEND F mb=0 to=1", "step 7"}));
  EXPECT_EQ(names(r1),
            (std::set<std::string>{"RECV F mb=0 from=0", "F mb=0", "optimizer", "step 7"}));
  EXPECT_EQ(r1.meta.extra.at("BUBBLESCOPE_PP_RANK"), "1");
  EXPECT_EQ(r1.meta.extra.at("BUBBLESCOPE_PP_SIZE"), "2");
  // "step 7" spans the rank's events of that step.
  for (size_t i = 0; i < r1.ranges->size(); ++i) {
    if (r1.strings.at(r1.ranges->name[i]) == "step 7") {
      EXPECT_EQ(r1.ranges->start[i], 10'000);
      EXPECT_EQ(r1.ranges->end[i], 35'000);
    }
  }
}

TEST(ChromeTimeline, WithoutMicrobatchesTimerNamesStayForTheMegatronRules) {
  const ImportedFile f = importText(R"J({"traceEvents": [
    {"ph": "X", "name": "forward-compute", "pid": 3, "tid": 1, "ts": 0, "dur": 10},
    {"ph": "X", "name": "backward-send", "pid": 3, "tid": 1, "ts": 10, "dur": 1}]})J");
  ASSERT_EQ(f.ranks.size(), 1u);
  EXPECT_EQ(f.ranks[0].meta.rank, 3);
  EXPECT_EQ(names(f.ranks[0]), (std::set<std::string>{"forward-compute", "backward-send"}));
}

TEST(ChromeTimeline, TransfersWithoutStagesKeepNoPeerAndSaySo) {
  const ImportedFile f = importText(R"J([
    {"ph": "X", "name": "forward-send", "pid": 0, "tid": 1, "ts": 0, "dur": 1, "args": {"mb_id": 2}}])J");
  EXPECT_EQ(names(f.ranks.at(0)), (std::set<std::string>{"SEND F mb=2"}));
  ASSERT_EQ(f.notes.size(), 1u);
  EXPECT_NE(f.notes[0].find("without their peer stage"), std::string::npos);
}

// Metadata after the events is read ahead for NDTimeline's thread names; names of another form
// leave the file a plain timeline, its threads named as they say.
TEST(ChromeTimeline, ThreadNamesAfterTheEventsThatAreNotNdTimelinesKeepAPlainTimeline) {
  const ImportedFile f = importText(R"J([
    {"ph": "X", "name": "forward-compute", "pid": 0, "tid": 1, "ts": 0, "dur": 10},
    {"ph": "X", "name": "forward-compute", "pid": 1, "tid": 6, "ts": 0, "dur": 10},
    {"ph": "M", "name": "thread_name", "pid": 0, "tid": 1, "args": {"name": "Main thread"}},
    {"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "python3"}}])J");
  EXPECT_EQ(f.format, "chrome-trace");
  ASSERT_EQ(f.ranks.size(), 2u);
  EXPECT_EQ(f.ranks[0].strings.at(f.ranks[0].threads[0].name), "Main thread");
  EXPECT_EQ(f.ranks[1].meta.extra.at("chrome.process_name"), "python3");
}

}  // namespace
}  // namespace bubblescope::traces::import
