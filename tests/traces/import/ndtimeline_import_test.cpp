// NDTimeline timelines (Megatron-LM op-level, pid = DP rank, tid = rank * 5 + category): every
// (DP, PP, TP) rank its own trace with its coordinates, timers in the bubblescope convention.
#include <gtest/gtest.h>

#include <set>

#include "traces/errors.h"
#include "traces/import/chrome_json/chrome_trace_import.h"
#include "traces/import/chrome_json/ndtimeline/ndtimeline_names.h"

namespace bubblescope::traces::import {
namespace {

using namespace ndtimeline;

ImportedFile importText(const std::string& json) {
  ByteSource source(json, "ndtimeline.json");
  return importChromeTrace(source);
}

std::set<std::string> names(const RankTrace& t) {
  std::set<std::string> out;
  for (StringId n : t.ranges->name) out.emplace(t.strings.at(n));
  return out;
}

std::string meta(int pid, int64_t tid, const std::string& name) {
  return R"({"ph":"M","name":"thread_name","pid":)" + std::to_string(pid) + R"(,"tid":)" +
         std::to_string(tid) + R"(,"args":{"name":")" + name + "\"}},";
}

TEST(NdTimelineNames, ThreadAndProcessNamesGiveThePlace) {
  auto t = parseThreadName("PP rank 3, TP rank 1, dp-comm");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->pp, 3);
  EXPECT_EQ(t->tp, 1);
  EXPECT_EQ(t->category, Category::DpComm);
  EXPECT_FALSE(parseThreadName("PP rank x, TP rank 1, compute"));
  EXPECT_FALSE(parseThreadName("Main thread"));
  EXPECT_EQ(parseProcessName("DP rank 2"), 2);
  EXPECT_EQ(parseProcessName("DP rank [5]"), 5);
  EXPECT_FALSE(parseProcessName("DP rank [5"));
  EXPECT_FALSE(parseProcessName("python3"));
}

TEST(NdTimelineNames, TimerNamesAndTheirNonOverlappingVariants) {
  EXPECT_EQ(meaningOf("forward-compute"), Meaning::Forward);
  EXPECT_EQ(meaningOf("backward-wgrad-compute"), Meaning::WeightGrad);
  EXPECT_EQ(meaningOf("forward-send-backward-recv"), Meaning::SendFRecvB);
  EXPECT_EQ(meaningOf("grads-reduce-scatter-nonoverlapping"), Meaning::DpCollective);
  EXPECT_TRUE(isNonOverlapping("grads-reduce-scatter-nonoverlapping"));
  EXPECT_EQ(meaningOf("tp-allgather"), Meaning::TpCollective);
  EXPECT_EQ(meaningOf("optimizer-inner-step"), Meaning::Optimizer);
  EXPECT_EQ(meaningOf("gc"), Meaning::HostWork);
  EXPECT_EQ(meaningOf("checkpoint-save"), Meaning::Unknown);
  // Megatron-LM's interleaved schedule batches its transfers under three more timers.
  EXPECT_EQ(meaningOf("forward-send-forward-recv"), Meaning::SendFRecvF);
  EXPECT_EQ(meaningOf("backward-send-backward-recv"), Meaning::SendBRecvB);
  EXPECT_EQ(meaningOf("forward-backward-send-forward-backward-recv"), Meaning::SendFBRecvFB);
  EXPECT_EQ(categoryOf(Meaning::SendFBRecvFB), Category::PpComm);
}

// PP2 x TP2 x DP2 in miniature: rank = tp + 2 * (dp + 2 * pp), as Megatron numbers them. The
// metadata events, each followed by a comma.
std::string gridMetadata() {
  std::string s = R"({"ph":"M","name":"process_name","pid":0,"args":{"name":"DP rank 0"}},
                     {"ph":"M","name":"process_name","pid":1,"args":{"name":"DP rank 1"}},)";
  for (int pp = 0; pp < 2; ++pp) {
    for (int dp = 0; dp < 2; ++dp) {
      for (int tp = 0; tp < 2; ++tp) {
        const int rank = tp + 2 * (dp + 2 * pp);
        const char* cats[] = {"compute", "pp-comm", "tp-comm", "dp-comm", "misc"};
        for (int c = 0; c < 5; ++c) {
          s += meta(
              dp, rank * 5 + c,
              "PP rank " + std::to_string(pp) + ", TP rank " + std::to_string(tp) + ", " + cats[c]);
        }
      }
    }
  }
  return s;
}

// A timeline's opening: "[" and the grid's metadata, ready for its events.
std::string grid() {
  return "[" + gridMetadata();
}

std::string x(const std::string& name, int dp, int rank, int cat, double ts, double dur,
              const std::string& args) {
  return R"({"ph":"X","name":")" + name + R"(","pid":)" + std::to_string(dp) + R"(,"tid":)" +
         std::to_string(rank * 5 + cat) + R"(,"ts":)" + std::to_string(ts) + R"(,"dur":)" +
         std::to_string(dur) + R"(,"args":{)" + args + "}}";
}

// Rank 6's and rank 1's events (see below), comma-separated.
std::string gridEvents() {
  std::string json;
  // Rank 6 = (dp 1, pp 1, tp 0): its forward of mb 0, the fused send/recv, a backward.
  json += x("forward-recv", 1, 6, 1, 5, 1, R"("step":3,"mb_id":0,"model_chunk":0)") + ",";
  json += x("forward-compute", 1, 6, 0, 10, 20, R"("step":3,"mb_id":0,"model_chunk":0)") + ",";
  json += x("backward-compute", 1, 6, 0, 30, 40, R"("step":3,"mb_id":0,"model_chunk":0)") + ",";
  json += x("backward-send-forward-recv", 1, 6, 1, 70, 2, R"("step":3,"mb_id":0,"model_chunk":0)") +
          ",";
  json += x("forward-compute", 1, 6, 0, 72, 20, R"("step":3,"mb_id":1,"model_chunk":0)") + ",";
  json += x("tp-allreduce", 1, 6, 2, 25, 5, R"("step":3,"mb_id":0)") + ",";
  json += x("grads-reduce-scatter", 1, 6, 3, 100, 8, R"("step":3)") + ",";
  json += x("optimizer-inner-step", 1, 6, 3, 110, 8, R"("step":3)") + ",";
  json += x("checkpoint-save", 1, 6, 4, 120, 1, R"("step":3)") + ",";
  // Rank 1 = (dp 0, pp 0, tp 1).
  json += x("forward-compute", 0, 1, 0, 0, 20, R"("step":3,"mb_id":0,"model_chunk":0)") + ",";
  json += x("forward-send", 0, 1, 1, 20, 1, R"("step":3,"mb_id":0,"model_chunk":0)");
  return json;
}

TEST(NdTimelineImport, EveryRankIsATraceWithItsCoordinates) {
  const ImportedFile f = importText(grid() + gridEvents() + "]");
  EXPECT_EQ(f.format, "ndtimeline");
  ASSERT_EQ(f.ranks.size(), 2u);
  const RankTrace& r1 = f.ranks[0];
  const RankTrace& r6 = f.ranks[1];
  EXPECT_EQ(r1.meta.rank, 1);
  EXPECT_EQ(r1.meta.source, "ndtimeline");
  EXPECT_EQ(r1.meta.extra.at("BUBBLESCOPE_DP_RANK"), "0");
  EXPECT_EQ(r1.meta.extra.at("BUBBLESCOPE_PP_RANK"), "0");
  EXPECT_EQ(r1.meta.extra.at("BUBBLESCOPE_TP_RANK"), "1");
  EXPECT_EQ(r6.meta.rank, 6);
  EXPECT_EQ(r6.meta.extra.at("BUBBLESCOPE_DP_RANK"), "1");
  EXPECT_EQ(r6.meta.extra.at("BUBBLESCOPE_PP_RANK"), "1");
  EXPECT_EQ(r6.meta.extra.at("BUBBLESCOPE_TP_RANK"), "0");
  EXPECT_EQ(r6.meta.extra.at("BUBBLESCOPE_PP_SIZE"), "2");
  EXPECT_EQ(r6.meta.extra.at("BUBBLESCOPE_TP_SIZE"), "2");
  EXPECT_EQ(r6.meta.extra.at("BUBBLESCOPE_DP_SIZE"), "2");
  EXPECT_EQ(names(r1), (std::set<std::string>{"F mb=0", "SEND F mb=0 to=1", "step 3"}));
  // The fused batch is two transfers; the one received is for the next forward (mb 1).
  EXPECT_EQ(names(r6),
            (std::set<std::string>{"RECV F mb=0 from=0", "F mb=0", "BW mb=0", "SEND B mb=0 to=0",
                                   "RECV F mb=1 from=0", "F mb=1", "tp-allreduce",
                                   "grad_sync grads-reduce-scatter",
                                   "optimizer optimizer-inner-step", "checkpoint-save", "step 3"}));
  // Threads keep the exporter's names; times are the file's µs in ns.
  EXPECT_EQ(r6.strings.at(r6.threads[0].name), "PP rank 1, TP rank 0, compute");
  EXPECT_EQ(r6.meta.startNs, 5'000);
  // The summary says what was recognised and what was not.
  ASSERT_GE(f.notes.size(), 2u);
  EXPECT_NE(f.notes[0].find("2 ranks (PP 2 x TP 2 x DP 2)"), std::string::npos) << f.notes[0];
  EXPECT_NE(f.notes[0].find("10 events recognised"), std::string::npos) << f.notes[0];
  EXPECT_NE(f.notes[1].find("checkpoint-save (1)"), std::string::npos) << f.notes[1];
  EXPECT_NE(f.notes[2].find("not all PP x TP x DP = 8"), std::string::npos) << f.notes[2];
}

TEST(NdTimelineImport, InterleavedBatchesAreTheTransfersOfTheComputeAroundThem) {
  // Rank 6 is stage 1 of 2 with two chunks: virtual stages 1 (chunk 0) and 3 (chunk 1, the
  // last). Each batch sends the outputs of the ops just run and receives the next ops' inputs;
  // a part with no peer virtual stage is not there (chunk 1's forward output, its backward's
  // input). The args' microbatch (here a wrong one) is not read.
  std::string json = grid();
  json += x("forward-compute", 1, 6, 0, 10, 10, R"("step":3,"mb_id":0,"model_chunk":0)") + ",";
  json += x("forward-send-forward-recv", 1, 6, 1, 20, 1, R"("step":3,"mb_id":9)") + ",";
  json += x("forward-compute", 1, 6, 0, 30, 10, R"("step":3,"mb_id":2,"model_chunk":1)") + ",";
  json += x("backward-compute", 1, 6, 0, 40, 20, R"("step":3,"mb_id":1,"model_chunk":0)") + ",";
  json +=
      x("forward-backward-send-forward-backward-recv", 1, 6, 1, 60, 2, R"("step":3,"mb_id":9)") +
      ",";
  json += x("forward-compute", 1, 6, 0, 62, 10, R"("step":3,"mb_id":3,"model_chunk":0)") + ",";
  json += x("backward-compute", 1, 6, 0, 72, 20, R"("step":3,"mb_id":2,"model_chunk":1)") + ",";
  json += x("backward-send-backward-recv", 1, 6, 1, 92, 1, R"("step":3,"mb_id":9)") + "]";
  const ImportedFile f = importText(json);
  ASSERT_EQ(f.ranks.size(), 1u);
  EXPECT_EQ(
      names(f.ranks[0]),
      (std::set<std::string>{"F mb=0", "SEND F mb=0 to=0", "RECV F mb=2 ch=1 from=0", "F mb=2 ch=1",
                             "BW mb=1", "SEND B mb=1 to=0", "RECV F mb=3 from=0", "F mb=3",
                             "BW mb=2 ch=1", "SEND B mb=2 ch=1 to=0", "step 3"}));
}

// NDTimeline's published timelines name their threads after all the events: the ranks, their
// places and labels are the same wherever the metadata sits.
TEST(NdTimelineImport, ThreadNamesAfterOrAmongTheEventsPlaceTheRanksAsBefore) {
  std::string metadata = gridMetadata();
  metadata.pop_back();  // its last comma
  const std::string events = gridEvents();
  const size_t half = events.find(R"({"ph":"X","name":"forward-compute","pid":0)");
  ASSERT_NE(half, std::string::npos);
  const ImportedFile first = importText("[" + metadata + "," + events + "]");
  const ImportedFile last = importText("[" + events + "," + metadata + "]");
  const ImportedFile among =
      importText("[" + events.substr(0, half) + metadata + "," + events.substr(half) + "]");
  ASSERT_EQ(first.ranks.size(), 2u);
  EXPECT_EQ(first.ranks[1].strings.at(first.ranks[1].threads[0].name),
            "PP rank 1, TP rank 0, compute");
  for (const ImportedFile* f : {&last, &among}) {
    EXPECT_EQ(f->format, "ndtimeline");
    EXPECT_EQ(f->notes, first.notes);
    ASSERT_EQ(f->ranks.size(), first.ranks.size());
    for (size_t i = 0; i < first.ranks.size(); ++i) {
      EXPECT_EQ(f->ranks[i].meta.rank, first.ranks[i].meta.rank);
      EXPECT_EQ(f->ranks[i].meta.extra, first.ranks[i].meta.extra);
      EXPECT_EQ(names(f->ranks[i]), names(first.ranks[i]));
      EXPECT_EQ(f->ranks[i].ranges->start, first.ranks[i].ranges->start);
      EXPECT_EQ(f->ranks[i].strings.at(f->ranks[i].threads[0].name),
                first.ranks[i].strings.at(first.ranks[i].threads[0].name));
    }
  }
}

TEST(NdTimelineImport, WeightGradientsSplitTheBackward) {
  std::string json = grid();
  json += x("backward-compute", 0, 0, 0, 0, 10, R"("step":0,"mb_id":2)") + ",";
  json += x("backward-wgrad-compute", 0, 0, 0, 10, 10, R"("step":0,"mb_id":2)") + "]";
  const ImportedFile f = importText(json);
  ASSERT_EQ(f.ranks.size(), 1u);
  EXPECT_EQ(names(f.ranks[0]), (std::set<std::string>{"B mb=2", "W mb=2", "step 0"}));
}

TEST(NdTimelineImport, TimersWithoutMicrobatchesKeepMegatronsNames) {
  // The analyzer's Megatron rule set numbers such ops in order.
  std::string json = grid();
  json += x("forward-compute", 0, 0, 0, 0, 10, R"("step":0)") + ",";
  json += x("forward-send", 0, 0, 1, 10, 1, R"("step":0)") + ",";
  json += x("backward-compute", 0, 0, 0, 20, 10, R"("step":0)") + "]";
  const ImportedFile f = importText(json);
  ASSERT_EQ(f.ranks.size(), 1u);
  EXPECT_EQ(names(f.ranks[0]), (std::set<std::string>{"forward-compute", "forward-send",
                                                      "backward-compute", "step 0"}));
  ASSERT_FALSE(f.notes.empty());
  EXPECT_NE(f.notes.back().find("keep Megatron's timer names"), std::string::npos);
}

TEST(NdTimelineImport, ARankWithoutThreadNamesIsOneClearError) {
  std::string json = R"([{"ph":"M","name":"thread_name","pid":0,"tid":0,
                          "args":{"name":"PP rank 0, TP rank 0, compute"}},)";
  json += x("forward-compute", 0, 0, 0, 0, 10, R"("step":0,"mb_id":0)") + ",";
  json += x("forward-compute", 0, 3, 0, 0, 10, R"("step":0,"mb_id":0)") + "]";
  try {
    importText(json);
    FAIL() << "expected a TraceError";
  } catch (const TraceError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("ndtimeline.json"), std::string::npos) << what;
    EXPECT_NE(what.find("rank 3 (pid 0, tid 15) has no thread_name"), std::string::npos) << what;
  }
}

std::string processName(int pid, const std::string& name) {
  return R"({"ph":"M","name":"process_name","pid":)" + std::to_string(pid) +
         R"(,"args":{"name":")" + name + "\"}},";
}

// Numbers that do not fit where they go were narrowed without a word: a tid of 5 * (2^32 + 1)
// was rank 1, "DP rank 2147483647" made the DP size 0 (rank + 1 overflowed), and two processes
// named "DP rank 0" were folded into one TP group of two. Each is refused naming what says it.
TEST(NdTimelineImport, NumbersBeyondTheirRangeAndTwoRanksInOnePlaceAreRefused) {
  const std::string place0 = meta(0, 0, "PP rank 0, TP rank 0, compute");
  const std::string event0 = x("forward-compute", 0, 0, 0, 0, 10, R"("mb_id":0)");
  struct Case {
    std::string json;
    std::string says;
  };
  const Case cases[] = {
      {"[" + place0 +
           R"({"ph":"X","name":"forward-compute","pid":0,"tid":21474836485,"ts":0,"dur":1}])",
       "tid (rank * 5 + category) = 21474836485 is out of range (0 to 10737418239)"},
      {"[" + processName(0, "DP rank 2147483647") + place0 + event0 + "]",
       "process_name 'DP rank 2147483647' (pid 0): DP rank 2147483647 is out of range (0 to "
       "2147483646)"},
      {"[" + meta(0, 0, "PP rank 0, TP rank 2147483647, compute") + event0 + "]",
       "thread_name 'PP rank 0, TP rank 2147483647, compute' (pid 0, tid 0): TP rank 2147483647 "
       "is out of range (0 to 2147483646)"},
      {"[" + meta(0, 0, "PP rank 99999999999999999999, TP rank 0, compute") + event0 + "]",
       "thread_name 'PP rank 99999999999999999999, TP rank 0, compute' (pid 0, tid 0): PP rank "
       "9223372036854775807 is out of range (0 to 2147483646)"},
      {"[" + meta(2147483647, 0, "PP rank 0, TP rank 0, compute") +
           x("forward-compute", 2147483647, 0, 0, 0, 10, R"("mb_id":0)") + "]",
       "pid 2147483647 (the DP rank, for want of a 'DP rank d' process_name): DP rank 2147483647 "
       "is out of range (0 to 2147483646)"},
      {"[" + processName(0, "DP rank 0") + processName(1, "DP rank 0") + place0 +
           meta(1, 5, "PP rank 0, TP rank 0, compute") + event0 + "," +
           x("forward-compute", 1, 1, 0, 0, 10, R"("mb_id":0)") + "]",
       "pids 0 and 1 both stand for DP rank 0, so ranks 0 and 1 would both be its PP rank 0, TP "
       "rank 0"},
      {"[" + place0 + meta(0, 5, "PP rank 0, TP rank 0, compute") + event0 + "," +
           x("forward-compute", 0, 1, 0, 0, 10, R"("mb_id":0)") + "]",
       "ranks 0 and 1 (pid 0) both say they are PP rank 0, TP rank 0 of DP rank 0 in their "
       "thread_name"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.says);
    try {
      importText(c.json);
      ADD_FAILURE() << "imported";
    } catch (const TraceError& e) {
      EXPECT_EQ(std::string(e.what()), "ndtimeline.json: " + c.says) << e.what();
    }
  }
  // The largest place that fits is read as itself.
  const ImportedFile f = importText("[" + processName(0, "DP rank 2147483646") +
                                    meta(0, 10737418235, "PP rank 0, TP rank 2147483646, compute") +
                                    R"({"ph":"X","name":"forward-compute","pid":0,)"
                                    R"("tid":10737418235,"ts":0,"dur":1}])");
  ASSERT_EQ(f.ranks.size(), 1u);
  EXPECT_EQ(f.ranks[0].meta.rank, 2147483647);
  EXPECT_EQ(f.ranks[0].meta.extra.at("BUBBLESCOPE_DP_SIZE"), "2147483647");
  EXPECT_EQ(f.ranks[0].meta.extra.at("BUBBLESCOPE_TP_SIZE"), "2147483647");
}

}  // namespace
}  // namespace bubblescope::traces::import
