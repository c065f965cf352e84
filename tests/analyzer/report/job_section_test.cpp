// The job's what-if tables in text and Markdown: every part up to 16, else the 16 largest (in
// their order) and one line for the rest with their range; JSON keeps every one.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "analyzer/report/json_writer.h"
#include "analyzer/report/sections/job_section.h"

namespace bubblescope::analysis {
namespace {

JobResult jobOfReplicas(int n) {
  JobResult job;
  job.present = true;
  job.culprit = "DP replica 7, every stage: S_d = 1.30x";
  for (int d = 0; d < n; ++d) {
    // Replica 7 the slowest, then the lower ranks: 1.30x, then 1.000 + d/1000 down the line.
    const double sd = d == 7 ? 1.30 : 1.0 + (n - d) / 1000.0;
    job.dpRanks.push_back({d, "DP replica " + std::to_string(d), sd, 1'000'000});
  }
  return job;
}

TEST(JobSection, AFewPartsAreEachListed) {
  std::ostringstream text;
  writeJobText(jobOfReplicas(16), text);
  for (int d = 0; d < 16; ++d) {
    EXPECT_NE(text.str().find("  DP replica " + std::to_string(d) + " "), std::string::npos) << d;
  }
  EXPECT_EQ(text.str().find(" more, S_d"), std::string::npos);
}

TEST(JobSection, ManyPartsListTheLargestAndSayWhatTheRestSpan) {
  std::ostringstream text, md, json;
  const JobResult job = jobOfReplicas(40);
  writeJobText(job, text);
  writeJobMarkdown(job, md);
  const std::string t = text.str();
  // Listed: 7 (1.30x) and the 15 lowest other ranks (the largest S_d), in rank order.
  size_t last = 0;
  for (int d = 0; d < 40; ++d) {
    const size_t at = t.find("  DP replica " + std::to_string(d) + " ");
    EXPECT_EQ(at != std::string::npos, d <= 15) << d;
    if (at == std::string::npos) continue;
    EXPECT_GT(at, last) << d;
    last = at;
  }
  // The rest: ranks 16-39, S_d 1.001x to 1.024x, printed with two decimals.
  EXPECT_NE(t.find("  ... 24 more, S_d 1.00x to 1.02x (JSON lists every one)"), std::string::npos)
      << t;
  EXPECT_NE(md.str().find("24 more, S_d 1.00x to 1.02x"), std::string::npos) << md.str();
  {
    JsonWriter w(json, -1);  // flushed as it goes
    writeJobJson(job, w);
  }
  EXPECT_NE(json.str().find("\"DP replica 39\""), std::string::npos);
}

}  // namespace
}  // namespace bubblescope::analysis
