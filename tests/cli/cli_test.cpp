// The bubblescope program's contract: --version, --help on every subcommand, exit codes.
#include <gtest/gtest.h>

#include "tests/support/subprocess.h"

namespace bubblescope {
namespace {

using testing::runBubblescope;

TEST(Cli, VersionPrintsProgramAndVersion) {
  auto r = runBubblescope({"--version"});
  EXPECT_EQ(r.exitCode, 0);
  EXPECT_NE(r.out.find("bubblescope 0."), std::string::npos) << r.out;
}

TEST(Cli, NoSubcommandIsAUsageError) {
  auto r = runBubblescope({});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("bubblescope:"), std::string::npos) << r.err;
}

TEST(Cli, UnknownSubcommandIsAUsageErrorOnOneLine) {
  auto r = runBubblescope({"frobnicate"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST(Cli, EverySubcommandHasHelp) {
  for (const char* sub : {"simulate", "engine", "demo"}) {
    auto r = runBubblescope({sub, "--help"});
    EXPECT_EQ(r.exitCode, 0) << sub;
    EXPECT_NE(r.out.find(sub), std::string::npos) << sub << ": " << r.out;
  }
}

}  // namespace
}  // namespace bubblescope
