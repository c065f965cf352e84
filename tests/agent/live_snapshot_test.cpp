// What a process answers to `hang` (agent/control/live_snapshot.h): its fields survive the trip
// through a reply line, a reply never outgrows the protocol's limit (the newest calls and the
// innermost ranges are what is kept), and a malformed reply is refused with the field named.
#include <gtest/gtest.h>

#include "agent/control/live_snapshot.h"
#include "agent/control/protocol.h"

namespace bubblescope::control {
namespace {

using traces::NcclOp;

LiveSnapshot sample() {
  LiveSnapshot s;
  s.aliveNs = 1'795'735'170'058'232'797;
  s.env["BUBBLESCOPE_PP_RANK"] = "2";
  s.ranges.push_back({4566, 0, 1'795'735'162'886'602'927, "", "step 0"});
  s.ranges.push_back({4566, 1, 1'795'735'162'891'786'230, "my domain, too", "RECV B mb=3, from=1"});
  LiveCall c;
  c.op = NcclOp::Recv;
  c.peer = 1;
  c.count = 1024;
  c.bytes = 4096;
  c.dtype = 7;
  c.comm = 0xfeedbeef12345678;
  c.commRank = 2;
  c.commSize = 4;
  c.seq = 17;
  c.startNs = 1'795'735'162'000'000'000;
  c.endNs = 0;
  c.tid = 4570;
  s.calls.push_back(c);
  s.counts.push_back({"recv", 0xfeedbeef12345678, 1, 17, 2});
  s.counts.push_back({"collective", 0xfeedbeef12345678, -1, 3, 2});
  return s;
}

TEST(LiveSnapshot, SurvivesTheReplyLine) {
  Reply r;
  r.ok = true;
  addSnapshot(sample(), r);
  const std::optional<Reply> back = parseReply(formatReply(r));
  ASSERT_TRUE(back.has_value());
  LiveSnapshot s;
  std::string error;
  ASSERT_TRUE(snapshotFromReply(*back, &s, &error)) << error;
  const LiveSnapshot want = sample();
  EXPECT_EQ(s.aliveNs, want.aliveNs);
  EXPECT_EQ(s.env.at("BUBBLESCOPE_PP_RANK"), "2");
  ASSERT_EQ(s.ranges.size(), 2u);
  // Innermost first: the reply keeps those when it must cut.
  EXPECT_EQ(s.ranges[0].name, "RECV B mb=3, from=1");
  EXPECT_EQ(s.ranges[0].domain, "my domain, too");
  EXPECT_EQ(s.ranges[0].depth, 1u);
  EXPECT_EQ(s.ranges[0].startNs, want.ranges[1].startNs);
  EXPECT_EQ(s.ranges[1].name, "step 0");
  EXPECT_EQ(s.ranges[1].domain, "");
  ASSERT_EQ(s.calls.size(), 1u);
  const LiveCall& c = s.calls[0];
  EXPECT_EQ(c.op, NcclOp::Recv);
  EXPECT_EQ(c.peer, 1);
  EXPECT_EQ(c.count, 1024u);
  EXPECT_EQ(c.bytes, 4096u);
  EXPECT_EQ(c.dtype, 7);
  EXPECT_EQ(c.comm, 0xfeedbeef12345678u);
  EXPECT_EQ(c.commRank, 2);
  EXPECT_EQ(c.commSize, 4);
  EXPECT_EQ(c.seq, 17u);
  EXPECT_EQ(c.endNs, 0);
  EXPECT_EQ(c.tid, 4570u);
  ASSERT_EQ(s.counts.size(), 2u);
  EXPECT_EQ(s.counts[1].kind, "collective");
  EXPECT_EQ(s.counts[1].peer, -1);
  EXPECT_EQ(s.counts[0].calls, 17u);
  EXPECT_EQ(s.counts[0].commRank, 2);
  EXPECT_TRUE(s.ncclRead);
}

TEST(LiveSnapshot, AReplyKeepsTheNewestCallsWithinTheProtocolLimit) {
  LiveSnapshot big = sample();
  big.calls.clear();
  for (int i = 0; i < 3000; ++i) {
    LiveCall c = sample().calls[0];
    c.seq = static_cast<uint64_t>(i + 1);
    big.calls.push_back(c);
  }
  for (uint32_t d = 0; d < 2000; ++d) {
    big.ranges.push_back({7, d, 1, "", std::string(100, 'x') + std::to_string(d)});
  }
  Reply r;
  r.ok = true;
  addSnapshot(big, r);
  const std::string line = formatReply(r);
  EXPECT_LE(line.size(), kMaxReplyBytes - 4096);
  LiveSnapshot s;
  std::string error;
  ASSERT_TRUE(snapshotFromReply(*parseReply(line), &s, &error)) << error;
  ASSERT_FALSE(s.calls.empty());
  EXPECT_LT(s.calls.size(), big.calls.size());
  EXPECT_EQ(s.calls.back().seq, 3000u);  // the newest is kept
  EXPECT_EQ(s.calls.front().seq, 3000u - s.calls.size() + 1);
  ASSERT_FALSE(s.ranges.empty());
  EXPECT_EQ(s.ranges.front().depth, 1999u);  // the innermost is kept
  EXPECT_EQ(s.counts.size(), 2u);
}

TEST(LiveSnapshot, MalformedFieldsAreNamed) {
  Reply r;
  r.ok = true;
  addSnapshot(sample(), r);
  r.fields["c0"] = "recv,1,notanumber";
  LiveSnapshot s;
  std::string error;
  EXPECT_FALSE(snapshotFromReply(r, &s, &error));
  EXPECT_EQ(error, "malformed field 'c0' in the reply to hang");
  Reply empty;
  empty.ok = true;
  EXPECT_FALSE(snapshotFromReply(empty, &s, &error));
  EXPECT_NE(error.find("lacks alive_ns"), std::string::npos) << error;
}

}  // namespace
}  // namespace bubblescope::control
