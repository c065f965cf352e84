// Escaping for the markup reports: whatever a trace holds (commands, paths, labels) must come
// out as text, never as markup, and always as valid XML.
#include <gtest/gtest.h>

#include "analyzer/report/markup.h"
#include "tests/analyzer/report/report_fixtures.h"

namespace bubblescope::analysis {
namespace {

TEST(EscapeXml, EscapesMarkupCharactersAndQuotes) {
  EXPECT_EQ(escapeXml(R"(<script>alert("x") & 'y'</script>)"),
            "&lt;script&gt;alert(&quot;x&quot;) &amp; &#39;y&#39;&lt;/script&gt;");
}

TEST(EscapeXml, KeepsValidUtf8AndWhitespace) {
  EXPECT_EQ(escapeXml("µs → stage\t2\n"), "µs → stage\t2\n");
}

TEST(EscapeXml, ReplacesControlCharactersAndBrokenUtf8) {
  const std::string replaced = "\xEF\xBF\xBD";
  EXPECT_EQ(escapeXml(std::string("a\x01"
                                  "b")),
            "a" + replaced + "b");
  EXPECT_EQ(escapeXml("a\xC3"), "a" + replaced);                         // truncated sequence
  EXPECT_EQ(escapeXml("\xC0\xAF"), replaced + replaced);                 // overlong '/'
  EXPECT_EQ(escapeXml("\xED\xA0\x80"), replaced + replaced + replaced);  // a surrogate
  const std::string doc =
      "<a b=\"" + escapeXml("\x02\xFF<\"") + "\">" + escapeXml(std::string("x\0y", 3)) + "</a>";
  EXPECT_EQ(testing::xmlWellFormedError(doc), "");
}

TEST(EscapeMarkdownCell, EscapesPipesBackslashesAndTags) {
  EXPECT_EQ(escapeMarkdownCell("a|b\\c <b>d</b>\ne"), "a\\|b\\\\c &lt;b&gt;d&lt;/b&gt; e");
}

TEST(MarkdownCode, FencesWithMoreBackticksThanTheTextHolds) {
  EXPECT_EQ(markdownCode("torchrun train.py"), "`torchrun train.py`");
  EXPECT_EQ(markdownCode("echo `date` now"), "``echo `date` now``");
  EXPECT_EQ(markdownCode("echo `date`"), "`` echo `date` ``");  // a space keeps the fence apart
  EXPECT_EQ(markdownCode("`x"), "`` `x ``");
  EXPECT_EQ(markdownCode("a|b"), "`a\\|b`");
  EXPECT_EQ(markdownCode(""), "");
}

}  // namespace
}  // namespace bubblescope::analysis
