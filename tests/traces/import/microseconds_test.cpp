// Chrome-trace microseconds become int64 ns exactly, from the digits (never through a double).
#include <gtest/gtest.h>

#include "traces/import/chrome_json/microseconds.h"

namespace bubblescope::traces::import {
namespace {

TEST(MicrosToNs, NanosecondFractionOfAnEpochTimeIsExact) {
  // 19 significant digits: a double would round this to ...689.047 +- 0.25 us.
  EXPECT_EQ(microsToNs("1712195495519689.047"), 1712195495519689047);
  EXPECT_EQ(microsToNs("1712195495505582.988"), 1712195495505582988);
}

TEST(MicrosToNs, IntegersFloatsAndStringsAllParse) {
  EXPECT_EQ(microsToNs("1682725898236567"), 1682725898236567000);
  EXPECT_EQ(microsToNs("68.0"), 68000);
  EXPECT_EQ(microsToNs("0.039"), 39);
  EXPECT_EQ(microsToNs("\"4458676522690.655\""), 4458676522690655);
  EXPECT_EQ(microsToNs("12 \n"), 12000);
  EXPECT_EQ(microsToNs("0"), 0);
}

TEST(MicrosToNs, DigitsPastTheNanosecondRoundHalfUp) {
  EXPECT_EQ(microsToNs("1.2805"), 1281);
  EXPECT_EQ(microsToNs("1.2804"), 1280);
  EXPECT_EQ(microsToNs("0.0005"), 1);
}

TEST(MicrosToNs, ExponentsAndSignsAreHonoured) {
  EXPECT_EQ(microsToNs("1.5e3"), 1'500'000);
  EXPECT_EQ(microsToNs("1.712195495519689047E15"), 1712195495519689047);
  EXPECT_EQ(microsToNs("2e-3"), 2);
  EXPECT_EQ(microsToNs("-2.5"), -2500);
}

TEST(MicrosToNs, TextThatIsNotATimeIsRefused) {
  EXPECT_EQ(microsToNs(""), std::nullopt);
  EXPECT_EQ(microsToNs("abc"), std::nullopt);
  EXPECT_EQ(microsToNs("1.2.3"), std::nullopt);
  EXPECT_EQ(microsToNs("1e40"), std::nullopt);
  EXPECT_EQ(microsToNs("99999999999999999999"), std::nullopt);
  EXPECT_EQ(microsToNs("null"), std::nullopt);
}

}  // namespace
}  // namespace bubblescope::traces::import
