// A pattern refuses a name outside the range RE2 gives it before matching: the range must never
// refuse a name RE2 itself would match, whatever the pattern (every built-in rule, and the
// shapes a user's rule file may take: case folding, leading wildcards, classes, UTF-8).
#include "analyzer/recognize/pattern.h"

#include <gtest/gtest.h>
#include <re2/re2.h>

#include <random>
#include <string>
#include <vector>

#include "analyzer/recognize/rule_set.h"

namespace bubblescope::analysis {
namespace {

std::vector<std::string> patterns() {
  std::vector<std::string> out = {
      R"((?i)step (\d+))",
      R"(.*p2p\.send)",
      R"([a-z]+)",
      R"(\d+)",
      R"((fwd|bwd)_\d+)",
      R"(é+ (\d+))",
      R"(a{2,4}z)",
      R"(x*)",
      R"()",
      R"(\xff+a)",
      R"((?i)É[a-z]*)",
      R"([^a]bc)",
      R"(z|.*)",
      R"((?s).)",
      R"(Zz\d*)",
      R"((?i)forward-compute)",
  };
  for (const RuleSet& set : builtinRuleSets()) {
    for (const Rule& r : set.rules) out.push_back(r.source);
  }
  for (const Rule& r : commonMarkers().rules) out.push_back(r.source);
  return out;
}

std::vector<std::string> names() {
  std::vector<std::string> out = {
      "",
      "step 3",
      "STEP 3",
      "Step 12",
      "F mb=0",
      "B mb=12 ch=1",
      "W mb=3",
      "BW mb=1",
      "SEND F mb=0 to=1",
      "RECV B mb=2 from=0",
      "PP:0F1",
      "PP:12I3",
      "Forward 3",
      "Backward 4",
      "F1.0.2",
      "R1.0.2",
      "W_clear.1.2",
      "iter_0_5",
      "forward-compute",
      "FORWARD-COMPUTE",
      "backward-recv",
      "optimizer",
      "megatron.core.pipeline_parallel.p2p_communication.send_forward",
      "x.p2p.send",
      "ForwardPass",
      "OptimizerStep",
      "ProfilerStep#12",
      "grad_sync x",
      "abc",
      "bbc",
      "é 1",
      "éé 22",
      "É",
      "Éa",
      "aaz",
      "aaaaz",
      "xxx",
      "\xff\xff"
      "a",
      "\xff",
      "Zz",
      "Zz99",
      "zzz",
      "0",
      "42",
      "fwd_1",
      "bwd_22",
      "~",
      "\x7f",
  };
  // Random names over the characters the patterns above start with, and a few beyond.
  const std::string alphabet = "SsTtEePpFfBbWwRrIiOoAaZzxz _.:#=-0129\xc3\xa9\x89\xff";
  std::mt19937 rng(20261130);
  std::uniform_int_distribution<size_t> len(0, 12), pick(0, alphabet.size() - 1);
  for (int i = 0; i < 20000; ++i) {
    std::string s(len(rng), ' ');
    for (char& c : s) c = alphabet[pick(rng)];
    out.push_back(s);
  }
  return out;
}

TEST(Pattern, ItsRangeRefusesOnlyNamesRe2CannotMatch) {
  const std::vector<std::string> all = names();
  std::vector<std::string_view> captures;
  std::vector<bool> matched;
  size_t matches = 0;
  for (const std::string& source : patterns()) {
    const Pattern p(source);
    const RE2 re(source);
    ASSERT_TRUE(re.ok()) << source;
    for (const std::string& name : all) {
      const bool expected = RE2::FullMatch(name, re);
      EXPECT_EQ(p.fullMatch(name, captures, matched), expected)
          << "pattern '" << source << "', name '" << name << "'";
      matches += expected ? 1 : 0;
    }
  }
  EXPECT_GT(matches, 1000u);  // the names exercise matches, not only refusals
}

}  // namespace
}  // namespace bubblescope::analysis
