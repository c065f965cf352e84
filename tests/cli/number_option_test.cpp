// The one rule every numeric option is checked by: a number in the option's range, or one
// sentence saying what was expected and what was typed.
#include "cli/number_option.h"

#include <gtest/gtest.h>

namespace bubblescope::cli {
namespace {

TEST(NumberOption, AcceptsNumbersInRangeAndSaysWhatWasExpectedOtherwise) {
  struct Case {
    const char* text;
    NumberRange range;
    const char* problem;  // "" when accepted
  };
  const Case cases[] = {
      {"8", wholeFrom(1, 256), ""},
      {"1", wholeFrom(1, 256), ""},
      {"256", wholeFrom(1, 256), ""},
      {"0", wholeFrom(1, 256), "must be a whole number from 1 to 256 (got 0)"},
      {"257", wholeFrom(1, 256), "must be a whole number from 1 to 256 (got 257)"},
      {"1.5", wholeFrom(1, 256), "must be a whole number from 1 to 256 (got 1.5)"},
      {"1e2", wholeFrom(1, 256), "must be a whole number from 1 to 256 (got 1e2)"},
      {"nan", wholeFrom(1, 256), "must be a whole number from 1 to 256 (got nan)"},
      {"abc", wholeFrom(1, 256), "must be a whole number from 1 to 256 (got abc)"},
      {"", wholeFrom(1, 256), "must be a whole number from 1 to 256 (got )"},
      {" 8", wholeFrom(1, 256), "must be a whole number from 1 to 256 (got  8)"},
      {"4294967297", wholeFrom(1, INT32_MAX),
       "must be a whole number from 1 to 2147483647 (got 4294967297)"},
      {"99999999999999999999", wholeFrom(0),
       "must be a whole number, 0 or more (got "
       "99999999999999999999)"},
      {"9223372036854775807", wholeFrom(0), ""},
      {"2.5", numberFrom(0), ""},
      {"0", numberFrom(0), ""},
      {"1e3", numberFrom(0), ""},
      {"-1", numberFrom(0), "must be a number, 0 or more (got -1)"},
      {"nan", numberFrom(0), "must be a number, 0 or more (got nan)"},
      {"inf", numberFrom(0), "must be a number, 0 or more (got inf)"},
      {"-inf", numberFrom(0), "must be a number, 0 or more (got -inf)"},
      {"1e400", numberFrom(0), "must be a number, 0 or more (got 1e400)"},
      {"0x10", numberFrom(0), "must be a number, 0 or more (got 0x10)"},
      {"100", numberFrom(0, 100), ""},
      {"100.5", numberFrom(0, 100), "must be a number from 0 to 100 (got 100.5)"},
      {"0.5", numberAbove(0), ""},
      {"0", numberAbove(0), "must be a number above 0 (got 0)"},
      {"nan", numberAbove(0), "must be a number above 0 (got nan)"},
      {"31622401", numberAbove(0, 31622400),
       "must be a number above 0 and at most 31622400 (got 31622401)"},
      {"2e6", numberAbove(0, 1e6), "must be a number above 0 and at most 1000000 (got 2e6)"},
      {"0.25", numberFrom(0.5, 2.5), "must be a number from 0.5 to 2.5 (got 0.25)"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(numberProblem(c.text, c.range), c.problem) << "'" << c.text << "'";
  }
  // What was typed is cut short: a pasted page does not fill the terminal.
  const std::string longText(400, '9');
  EXPECT_EQ(numberProblem(longText, numberFrom(0, 1)),
            "must be a number from 0 to 1 (got " + std::string(40, '9') + "...)");
}

TEST(NumberOption, RangeHintsAreShort) {
  EXPECT_EQ(rangeHint(wholeFrom(2, 16)), "2..16");
  EXPECT_EQ(rangeHint(wholeFrom(0)), ">=0");
  EXPECT_EQ(rangeHint(numberFrom(0)), ">=0");
  EXPECT_EQ(rangeHint(numberAbove(0)), ">0");
  EXPECT_EQ(rangeHint(numberFrom(0, 100)), "[0, 100]");
  EXPECT_EQ(rangeHint(numberAbove(0, 31622400)), "(0, 31622400]");
}

}  // namespace
}  // namespace bubblescope::cli
