// `bubblescope analyze` on a job with no pipeline opens with what its table would hide (issue 26,
// item 7): copies that took most of the device's busy time, by direction with their bytes, and
// waits measured among 2 of a collective's 128 members, in the first lines of the text, Markdown
// and HTML and in the JSON's `headline`; a job where neither holds opens with neither.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/analyzer/comm/collective_run.h"
#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"
#include "traces/sqlite/trace_writer.h"

namespace bubblescope::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr TimeNs kMs = kCollectiveMs;
constexpr uint64_t kGiB = uint64_t{1} << 30;

// collectiveRun's ranks (10 ms compute, then an all-reduce to 20 ms, every 100 ms; rank 0 waits
// 4 ms in each for rank 1) with `copyMs` of 4 GiB host-to-device copies after each all-reduce.
fs::path writeRun(const fs::path& dir, int world, TimeNs copyMs) {
  traces::Run run = collectiveRun({.traced = 2, .world = world, .commSize = world, .calls = 3});
  fs::create_directories(dir);
  for (traces::RankTrace& t : run.ranks) {
    const traces::StreamIndex copies = t.streamIndex(0, 21);
    for (int c = 0; c < 3 && copyMs > 0; ++c) {
      t.memcpys->start.push_back(c * 100 * kMs + 20 * kMs);
      t.memcpys->end.push_back(c * 100 * kMs + (20 + copyMs) * kMs);
      t.memcpys->stream.push_back(copies);
      t.memcpys->correlation.push_back(0);
      t.memcpys->bytes.push_back(4 * kGiB);
      t.memcpys->copyKind.push_back(traces::MemcpyKind::HostToDevice);
    }
    traces::writeRankTrace(t, dir / ("rank-0000" + std::to_string(t.meta.rank) + ".sqlite"));
  }
  return dir;
}

std::string analyze(const fs::path& run, const std::string& format) {
  const auto r = runBubblescope({"analyze", run.string(), "--format", format});
  EXPECT_EQ(r.exitCode, 0) << r.err;
  return r.out;
}

// Per rank: 280 ms from the first kernel to the last copy's end, 30 ms compute, 180 ms copying;
// rank 0 18 ms moving and 12 ms waiting in its all-reduces, rank 1 18 ms moving: 360 of 468 ms
// busy is copies.
const std::string kCopies =
    "copies took 76.9% of the device's busy time (360.0 of 468.0 ms busy summed over 2 ranks; "
    "compute 60.0 ms): 360.0 ms HtoD moving 24.0 GiB in 6 copies";
const std::string kMembers =
    "most members of the NCCL collectives are not traced: 2 of 128 members traced in all 3 "
    "collectives (1.6% of their members); the wait figures (12.0 ms) come from that minority, a "
    "lower bound on the job's wait";

TEST(UtilizationHeadlineCli, CopiesAndAnUntracedMajorityOpenEveryReport) {
  TempDir tmp("bubblescope-headline");
  const fs::path run = writeRun(tmp.path() / "run", 128, 60);

  const std::string text = analyze(run, "text");
  const size_t table = text.find("step time ");
  ASSERT_NE(table, std::string::npos) << text;
  EXPECT_LT(text.find("headline: " + kCopies + "\n"), table) << text;
  EXPECT_LT(text.find("headline: " + kMembers + "\n"), table) << text;

  const std::string md = analyze(run, "md");
  EXPECT_LT(md.find("**Headline:** " + kCopies + "\n"), md.find("| rank / step |")) << md;
  EXPECT_NE(md.find("**Headline:** " + kMembers + "\n"), std::string::npos) << md;

  const std::string html = analyze(run, "html");
  // HTML escapes the apostrophes ("device's", "job's").
  auto escaped = [](std::string s) {
    for (size_t at; (at = s.find('\'')) != std::string::npos;) s.replace(at, 1, "&#39;");
    return s;
  };
  const std::string head = "<p class=\"headline\"><strong>Headline:</strong> ";
  EXPECT_LT(html.find(head + escaped(kCopies) + "</p>"), html.find("<table>")) << html;
  EXPECT_LT(html.find(head + escaped(kMembers) + "</p>"), html.find("<table>")) << html;

  const json u = json::parse(analyze(run, "json"))["utilization"];
  EXPECT_EQ(u["headline"], json({kCopies, kMembers}));
  ASSERT_EQ(u["copies"].size(), 1u);
  EXPECT_EQ(
      u["copies"][0],
      json({{"direction", "HtoD"}, {"alone_ns", 360 * kMs}, {"bytes", 24 * kGiB}, {"count", 6}}));
  EXPECT_EQ(u["total"]["other_busy_ns"], 360 * kMs);
  EXPECT_EQ(u["collectives"]["collectives"], 3);
  EXPECT_EQ(u["collectives"]["partial"], 3);
  EXPECT_EQ(u["collectives"]["traced_members"], 6);
  EXPECT_EQ(u["collectives"]["members"], 384);
  EXPECT_EQ(u["collectives"]["least_traced"]["text"], "2 of 128 members traced");
}

TEST(UtilizationHeadlineCli, FewCopiesAndEveryMemberTracedOpenWithNeither) {
  TempDir tmp("bubblescope-headline");
  // 10 ms of copies a period against 30 ms of compute and NCCL (a third less on rank 1).
  const fs::path run = writeRun(tmp.path() / "run", 2, 10);
  EXPECT_EQ(analyze(run, "text").find("headline:"), std::string::npos);
  EXPECT_EQ(analyze(run, "md").find("Headline"), std::string::npos);
  const json u = json::parse(analyze(run, "json"))["utilization"];
  EXPECT_EQ(u["headline"], json::array());
  EXPECT_EQ(u["copies"][0]["alone_ns"], 60 * kMs);
  EXPECT_EQ(u["collectives"]["partial"], 0);
  EXPECT_EQ(u["collectives"]["members"], 6);
  EXPECT_FALSE(u["collectives"].contains("least_traced"));
}

}  // namespace
}  // namespace bubblescope::testing
