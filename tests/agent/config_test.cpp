// Settings and identity from the environment: which variable names the file, what is refused.
#include "agent/process/config.h"

#include <gtest/gtest.h>

namespace bubblescope::agent {
namespace {

TEST(AgentIdentity, FirstRankVariableSetNamesTheRank) {
  const Identity id = identityFromEnvironment(
      {{"SLURM_PROCID", "7"}, {"RANK", "3"}, {"WORLD_SIZE", "8"}, {"LOCAL_RANK", "1"}});
  EXPECT_EQ(id.rank, 3);
  EXPECT_EQ(id.rankVariable, "RANK");
  EXPECT_EQ(id.localRank, 1);
  EXPECT_EQ(id.worldSize, 8);
  EXPECT_TRUE(id.warnings.empty());
}

TEST(AgentIdentity, LaunchersInPriorityOrder) {
  EXPECT_EQ(identityFromEnvironment({{"PMI_RANK", "5"}}).rank, 5);
  EXPECT_EQ(identityFromEnvironment({{"OMPI_COMM_WORLD_RANK", "4"}, {"PMI_RANK", "5"}}).rank, 4);
  EXPECT_EQ(identityFromEnvironment({{"SLURM_PROCID", "2"}, {"OMPI_COMM_WORLD_RANK", "4"}}).rank,
            2);
  EXPECT_EQ(identityFromEnvironment({{"SLURM_NTASKS", "16"}}).worldSize, 16);
  EXPECT_EQ(identityFromEnvironment({{"SLURM_LOCALID", "3"}}).localRank, 3);
  EXPECT_EQ(identityFromEnvironment({}).rank, -1);
}

TEST(AgentIdentity, RankWithPathCharactersIsRefusedAndTheNextVariableUsed) {
  const Identity id = identityFromEnvironment({{"RANK", "../../etc"}, {"SLURM_PROCID", "6"}});
  EXPECT_EQ(id.rank, 6);
  ASSERT_EQ(id.warnings.size(), 1u);
  EXPECT_NE(id.warnings[0].find("RANK='../../etc'"), std::string::npos);
  EXPECT_NE(id.warnings[0].find("SLURM_PROCID"), std::string::npos);
}

TEST(AgentIdentity, OnlyPlainShortNumbersAreRanks) {
  for (const char* bad : {"-1", "+3", "3 ", "0x10", "1e3", "12345678901", "3/..", "rank3"}) {
    const Identity id = identityFromEnvironment({{"RANK", bad}});
    EXPECT_EQ(id.rank, -1) << bad;
    EXPECT_EQ(id.warnings.size(), 1u) << bad;
  }
  EXPECT_EQ(identityFromEnvironment({{"RANK", ""}}).warnings.size(), 0u);  // empty = unset
  EXPECT_EQ(identityFromEnvironment({{"RANK", "000123"}}).rank, 123);
}

TEST(AgentIdentity, RefusedValueIsQuotedPrintableAndShort) {
  const Identity id =
      identityFromEnvironment({{"RANK", std::string("a\nb\x01") + std::string(100, 'x')}});
  ASSERT_EQ(id.warnings.size(), 1u);
  EXPECT_EQ(id.warnings[0].find('\n'), std::string::npos);
  EXPECT_LT(id.warnings[0].size(), 150u);
}

TEST(AgentTraceFileName, RankOrPid) {
  EXPECT_EQ(traceFileName(3, 99), "rank-00003.sqlite");
  EXPECT_EQ(traceFileName(123456, 99), "rank-123456.sqlite");
  EXPECT_EQ(traceFileName(-1, 4242), "pid-4242.sqlite");
}

TEST(AgentConfig, DefaultsAndRelativeOutputDirectory) {
  const AgentConfig c = configFromEnvironment({}, "/work/job");
  EXPECT_EQ(c.outputDir, "/work/job/bubblescope-run");
  EXPECT_FALSE(c.dormant);
  EXPECT_FALSE(c.disabled);
  EXPECT_EQ(c.ringBytes, size_t{1} << 20);
  EXPECT_TRUE(c.useTsc);
  const AgentConfig d = configFromEnvironment({{"BUBBLESCOPE_OUTPUT_DIR", "out/x"},
                                               {"BUBBLESCOPE_DORMANT", "1"},
                                               {"BUBBLESCOPE_RUN_ID", "r1"},
                                               {"BUBBLESCOPE_BUFFER_KB", "64"},
                                               {"BUBBLESCOPE_CLOCK", "realtime"},
                                               {"BUBBLESCOPE_CUDA", "off"}},
                                              "/w");
  EXPECT_EQ(d.outputDir, "/w/out/x");
  EXPECT_TRUE(d.dormant);
  EXPECT_EQ(d.runId, "r1");
  EXPECT_EQ(d.ringBytes, 64u * 1024);
  EXPECT_FALSE(d.useTsc);
  EXPECT_FALSE(d.cudaRequested);
  EXPECT_TRUE(d.warnings.empty());
}

TEST(AgentConfig, BadSettingsAreIgnoredWithAWarning) {
  const AgentConfig c = configFromEnvironment(
      {{"BUBBLESCOPE_BUFFER_KB", "lots"}, {"BUBBLESCOPE_CLOCK", "sundial"}}, "/");
  EXPECT_EQ(c.ringBytes, size_t{1} << 20);
  EXPECT_EQ(c.warnings.size(), 2u);
}

// BUBBLESCOPE_DORMANT=maybe and BUBBLESCOPE_CONTROL=xyz were taken without a word.
TEST(AgentConfig, OnOffSettingThatIsNeitherKeepsTheDefaultWithOneWarningEach) {
  const AgentConfig c = configFromEnvironment(
      {{"BUBBLESCOPE_DORMANT", "maybe"}, {"BUBBLESCOPE_CONTROL", "xyz"}}, "/");
  EXPECT_FALSE(c.dormant);
  EXPECT_TRUE(c.controlSocket);
  ASSERT_EQ(c.warnings.size(), 2u);
  EXPECT_EQ(c.warnings[0],
            "ignoring BUBBLESCOPE_DORMANT='maybe' (1 or 0, on or off: off it stays)");
  EXPECT_EQ(c.warnings[1], "ignoring BUBBLESCOPE_CONTROL='xyz' (1 or 0, on or off: on it stays)");
}

TEST(AgentConfig, OnOffSettingsReadEitherWay) {
  const AgentConfig c =
      configFromEnvironment({{"BUBBLESCOPE_DORMANT", "on"}, {"BUBBLESCOPE_CONTROL", "off"}}, "/");
  EXPECT_TRUE(c.dormant);
  EXPECT_FALSE(c.controlSocket);
  EXPECT_TRUE(c.warnings.empty());
}

// Traces follow the umask unless the run asks for private ones.
TEST(AgentConfig, PrivateFilesOnlyWhenAsked) {
  EXPECT_FALSE(configFromEnvironment({}, "/").privateFiles);
  EXPECT_TRUE(configFromEnvironment({{"BUBBLESCOPE_PRIVATE", "1"}}, "/").privateFiles);
  const AgentConfig typo = configFromEnvironment({{"BUBBLESCOPE_PRIVATE", "please"}}, "/");
  EXPECT_FALSE(typo.privateFiles);
  EXPECT_EQ(typo.warnings.size(), 1u);
}

TEST(AgentExtra, KeepsBubblescopeAndLauncherVariablesOnly) {
  const auto extra = extraFromEnvironment({{"BUBBLESCOPE_PP_SIZE", "4"},
                                           {"RANK", "1"},
                                           {"SLURM_JOB_ID", "77"},
                                           {"HOME", "/root"},
                                           {"NVTX_INJECTION64_PATH", "/x.so"}});
  EXPECT_EQ(extra.size(), 3u);
  EXPECT_EQ(extra.at("BUBBLESCOPE_PP_SIZE"), "4");
  EXPECT_EQ(extra.at("SLURM_JOB_ID"), "77");
}

TEST(AgentEnvironment, RelevantVariablesOnly) {
  char a[] = "RANK=2", b[] = "PATH=/bin", c[] = "BUBBLESCOPE_X=1", d[] = "NOEQUALS";
  char* envp[] = {a, b, c, d, nullptr};
  const Environment env = relevantEnvironment(envp);
  EXPECT_EQ(env.size(), 2u);
  EXPECT_EQ(env.at("RANK"), "2");
}

}  // namespace
}  // namespace bubblescope::agent
