// Reading a V off the traffic: the calls a V schedule makes, posted as a job that receives right
// before an op and sends right after it, must read back as that schedule's ops (Ws included), and
// a chain's traffic must not read as a V.
#include "analyzer/infer/v_reading.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <tuple>

#include "analyzer/infer/v_schedule.h"
#include "reference_engine/schedule/schedule.h"

namespace bubblescope::analysis {
namespace {

using engine::Op;
using engine::OpKind;
using engine::Schedule;

// What each stage of `s` posts over `steps` steps, with an all-reduce (a group of no transfer)
// ending each step, and the stretch each op ran in: the truth a reading must give back.
struct Posted {
  std::vector<std::vector<VCall>> calls;
  std::vector<std::vector<VOp>> ops;
  std::vector<std::vector<VCarried>> messages;
};

VMessage messageOf(const Op& o, int fromStage, int toStage) {
  const bool down = toStage > fromStage;
  if (o.kind == OpKind::F) return down ? VMessage::A0 : VMessage::A1;
  return down ? VMessage::G1 : VMessage::G0;
}

// `inSendersOrder`: each receive is posted, at the latest right before the op that needs it, in
// the order its sender sent (NCCL pairs a link's messages in order): a message sent before the
// one an op needs is received with it, early.
Posted post(const Schedule& s, int steps, bool inSendersOrder = false) {
  Posted out;
  out.calls.resize(s.p);
  out.ops.resize(s.p);
  out.messages.resize(s.p);
  const int last = s.virtualStages() - 1;
  // A message: (the virtual stage that made it, its pass, its microbatch).
  using Message = std::tuple<int, OpKind, int>;
  // What stage q sends stage r in a step, in order.
  std::map<std::pair<int, int>, std::vector<Message>> sent;
  for (int q = 0; q < s.p; ++q) {
    for (const Op& o : s.stages[q]) {
      const int vs = s.virtualStage(q, o.chunk);
      const int outVs = o.kind == OpKind::F ? vs + 1 : vs - 1;
      if (o.kind == OpKind::W || outVs < 0 || outVs > last || s.stageOf(outVs) == q) continue;
      sent[{q, s.stageOf(outVs)}].push_back({vs, o.kind, o.mb});
    }
  }
  for (int st = 0; st < s.p; ++st) {
    int group = 0;
    auto call = [&](CutKind kind, VMessage m, int mb) {
      out.calls[st].push_back({kind, group});
      out.messages[st].push_back({m, mb});
    };
    for (int step = 0; step < steps; ++step) {
      std::map<int, size_t> posted;  // per sender, messages received so far this step
      for (const Op& o : s.stages[st]) {
        const int vs = s.virtualStage(st, o.chunk);
        const bool forward = o.kind == OpKind::F;
        const int inVs = forward ? vs - 1 : vs + 1;
        const int outVs = forward ? vs + 1 : vs - 1;
        if (o.kind != OpKind::W && inVs >= 0 && inVs <= last && s.stageOf(inVs) != st) {
          const int from = s.stageOf(inVs);
          const CutKind kind = from < st ? CutKind::ActIn : CutKind::GradIn;
          const Message want{inVs, o.kind, o.mb};
          const auto& list = sent[{from, st}];
          size_t& i = posted[from];
          bool taken = false;
          if (inSendersOrder) {
            for (size_t k = 0; k < i; ++k) taken = taken || list[k] == want;
          }
          while (!taken) {
            const Message m = inSendersOrder ? list.at(i++) : want;
            const auto [mVs, mKind, mMb] = m;
            const int consumerChunk = s.chunkOf(mKind == OpKind::F ? mVs + 1 : mVs - 1);
            call(kind, messageOf({mKind, mMb, consumerChunk}, from, st), mMb);
            taken = m == want;
            if (taken) ++group;  // the op runs after the calls just posted
          }
        }
        out.ops[st].push_back({o.kind, o.chunk, group, o.mb});
        if (o.kind != OpKind::W && outVs >= 0 && outVs <= last && s.stageOf(outVs) != st) {
          const int to = s.stageOf(outVs);
          call(to > st ? CutKind::ActOut : CutKind::GradOut, messageOf(o, st, to), o.mb);
          ++group;
        }
      }
      ++group;  // the all-reduce
    }
  }
  return out;
}

std::string opText(const VOp& o) {
  return std::string(engine::kindName(o.kind)) + std::to_string(o.mb) + "." +
         std::to_string(o.chunk) + "@" + std::to_string(o.stretch);
}

TEST(VReading, ZbVTrafficReadsBackAsItsOpsAndWs) {
  for (auto [p, m] :
       {std::pair{2, 3}, std::pair{4, 8}, std::pair{4, 4}, std::pair{3, 6}, std::pair{8, 16}}) {
    const Posted posted = post(Schedule::zbV(p, m), 3);
    const VScheduleMatch match = matchVSchedule(posted.calls);
    ASSERT_TRUE(match.matched) << "p=" << p << " m=" << m;
    EXPECT_EQ(match.name, "ZB-V");
    EXPECT_EQ(match.m, m);
    EXPECT_EQ(match.steps, 3);
    for (int s = 0; s < p; ++s) {
      ASSERT_EQ(match.ops[s].size(), posted.ops[s].size()) << "stage " << s;
      for (size_t i = 0; i < match.ops[s].size(); ++i) {
        EXPECT_EQ(match.ops[s][i], posted.ops[s][i])
            << "p=" << p << " m=" << m << " stage " << s << " op " << i << ": read "
            << opText(match.ops[s][i]) << ", ran " << opText(posted.ops[s][i]);
      }
      EXPECT_EQ(match.messages[s], posted.messages[s]) << "stage " << s;
    }
  }
}

// A job that posts its receives in the order its neighbours sent (NCCL's pairing; torch posts a
// receive at the schedule step where its sender sends) takes some inputs early: still read back.
TEST(VReading, ReceivesPostedEarlyInTheSendersOrderReadBack) {
  for (auto [p, m] : {std::pair{4, 8}, std::pair{3, 6}, std::pair{8, 16}}) {
    const Posted posted = post(Schedule::zbV(p, m), 2, true);
    int early = 0;
    for (int s = 0; s < p; ++s) {
      for (size_t i = 1; i < posted.calls[s].size(); ++i)
        early += posted.calls[s][i].group == posted.calls[s][i - 1].group;
    }
    EXPECT_GT(early, 0) << "p=" << p << " m=" << m << ": no receive was posted early";
    const VScheduleMatch match = matchVSchedule(posted.calls);
    ASSERT_TRUE(match.matched) << "p=" << p << " m=" << m;
    EXPECT_EQ(match.m, m);
    for (int s = 0; s < p; ++s) {
      ASSERT_EQ(match.ops[s].size(), posted.ops[s].size());
      for (size_t i = 0; i < match.ops[s].size(); ++i) {
        EXPECT_EQ(match.ops[s][i], posted.ops[s][i])
            << "p=" << p << " m=" << m << " stage " << s << " op " << i << ": read "
            << opText(match.ops[s][i]) << ", ran " << opText(posted.ops[s][i]);
      }
      EXPECT_EQ(match.messages[s], posted.messages[s]) << "stage " << s;
    }
  }
}

// A chain moves what a V of half its microbatches does on every link; its order of calls is no
// ZB-V's, except in a 2-stage job, where a 1F1B of 4 is a ZB-V of 2 call for call: there the
// chain, a known order too, is taken.
TEST(VReading, ChainTrafficIsNoZbV) {
  for (const Schedule& s : {Schedule::oneF1B(4, 8), Schedule::gpipe(4, 8), Schedule::zbH1(4, 8),
                            Schedule::oneF1B(3, 6), Schedule::gpipe(2, 6), Schedule::zbH2(4, 8)}) {
    EXPECT_FALSE(matchVSchedule(post(s, 2).calls).matched)
        << engine::scheduleName(s.kind) << " p=" << s.p << " m=" << s.m;
  }
  const Schedule small = Schedule::oneF1B(2, 4);
  EXPECT_TRUE(matchVSchedule(post(small, 2).calls).matched);
  std::vector<std::vector<OpKind>> chain(small.p);
  for (int st = 0; st < small.p; ++st) {
    for (int step = 0; step < 2; ++step) {
      for (const Op& o : small.stages[st]) chain[st].push_back(o.kind);
    }
  }
  EXPECT_TRUE(isKnownChainOrder(chain, 4));
  // A ZB-V read as a chain (its chunk-1 forwards taken for backwards) is no chain order.
  const Posted zbv = post(Schedule::zbV(4, 8), 1);
  std::vector<std::vector<OpKind>> asChain(4);
  for (int st = 0; st < 4; ++st) {
    for (const VOp& o : zbv.ops[st]) {
      if (o.kind == OpKind::W) continue;
      const bool down = (o.kind == OpKind::F) == (o.chunk == 0);
      asChain[st].push_back(down ? OpKind::F : OpKind::BW);
    }
  }
  EXPECT_FALSE(isKnownChainOrder(asChain, 16));
}

// A stage that takes its inputs in another order than a V schedule's (it posts a receive early)
// is not claimed for one.
TEST(VReading, CallsOutOfTheScheduleOrderAreNoZbV) {
  Posted posted = post(Schedule::zbV(4, 8), 2);
  auto& calls = posted.calls[2];
  size_t i = 0;
  while (i + 1 < calls.size() && calls[i].kind == calls[i + 1].kind) ++i;
  ASSERT_LT(i + 1, calls.size());
  std::swap(calls[i].kind, calls[i + 1].kind);
  EXPECT_FALSE(matchVSchedule(posted.calls).matched);
}

}  // namespace
}  // namespace bubblescope::analysis
