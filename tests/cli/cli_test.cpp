// The bubblescope program's contract: --version, --help on every subcommand, exit codes.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

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

// A command that needs one of its own (import's formats, export's, engine's) said "A subcommand
// is required (see 'bubblescope --help')", also where the user put the input before its format.
// Now each line names the command, its choices and its own help; hidden ones (engine worker) are
// not offered.
TEST(Cli, ACommandWithoutItsOwnCommandNamesTheChoices) {
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const Case cases[] = {
      {{}, "bubblescope: name a command: simulate, engine, demo,"},
      {{"import"},
       "bubblescope import: name a command: kineto, nsys (see 'bubblescope import "
       "--help')"},
      {{"import", "trace.json", "-o", "run"},
       "bubblescope import: unknown command 'trace.json' (commands: kineto, nsys; see "
       "'bubblescope import --help')"},
      {{"export", "run"}, "bubblescope export: unknown command 'run' (commands: perfetto;"},
      {{"engine"}, "bubblescope engine: name a command: run (see 'bubblescope engine --help')"},
      // Errors inside a command point at that command's help.
      {{"import", "kineto", "trace.json"}, "(see 'bubblescope import kineto --help')"},
      {{"analyze"}, "(see 'bubblescope analyze --help')"},
  };
  for (const Case& c : cases) {
    const auto r = runBubblescope(c.args);
    EXPECT_EQ(r.exitCode, 2) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("worker"), std::string::npos) << r.err;
  }
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
