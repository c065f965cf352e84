// The report-format table: names, aliases, output files and the help and error texts all come
// from it, and every format writes both kinds of job.
#include "analyzer/report/report.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace bubblescope::analysis {
namespace {

TEST(ReportFormats, NamesAliasesAndExtensionsFindTheirRow) {
  EXPECT_STREQ(findReportFormat("text")->key, "text");
  EXPECT_STREQ(findReportFormat("markdown")->key, "md");
  EXPECT_STREQ(findReportFormat("md")->key, "md");
  EXPECT_EQ(findReportFormat("pdf"), nullptr);
  EXPECT_EQ(findReportFormat(""), nullptr);
  EXPECT_STREQ(reportFormatForFile("out/report.htm")->key, "html");
  EXPECT_STREQ(reportFormatForFile("report.html")->key, "html");
  EXPECT_STREQ(reportFormatForFile("results.xml")->key, "junit");
  EXPECT_STREQ(reportFormatForFile("r.json")->key, "json");
  EXPECT_STREQ(reportFormatForFile("r.txt")->key, "text");
  EXPECT_EQ(reportFormatForFile("report"), nullptr);
  EXPECT_THROW(reportFormat("pdf"), std::invalid_argument);
}

TEST(ReportFormats, HelpAndErrorTextsListEveryKeyTextFirst) {
  EXPECT_EQ(reportFormatKeys(), "text, json, md, html, junit");
  EXPECT_EQ(reportFormatChoices(), "text (default), json, md, html or junit");
  EXPECT_STREQ(reportFormats().front().key, "text");
}

TEST(ReportFormats, EveryRowHasBothWritersAndItsOwnKeyAndExtensions) {
  std::set<std::string> names, extensions;
  for (const ReportFormat& f : reportFormats()) {
    EXPECT_NE(f.pipeline, nullptr) << f.key;
    EXPECT_NE(f.utilization, nullptr) << f.key;
    EXPECT_TRUE(names.insert(f.key).second) << f.key;
    for (const char* a : f.aliases) {
      if (a) {
        EXPECT_TRUE(names.insert(a).second) << a;
      }
    }
    for (const char* e : f.extensions) {
      if (e) {
        EXPECT_TRUE(extensions.insert(e).second) << e;
      }
    }
  }
  EXPECT_TRUE(findReportFormat("text")->colors);
  EXPECT_FALSE(findReportFormat("json")->colors);
}

}  // namespace
}  // namespace bubblescope::analysis
