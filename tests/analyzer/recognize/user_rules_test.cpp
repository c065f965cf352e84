// A user's rule set from a JSON file (the format in analyzer/recognize/user_rules.cpp): rules read
// as written, and every mistake refused with one sentence naming the file and the rule.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "analyzer/recognize/rule_set.h"
#include "tests/support/temp_dir.h"

namespace bubblescope::analysis {
namespace {

using ::testing::HasSubstr;
using testing::TempDir;
using testing::writeFile;

RuleSet load(const TempDir& dir, const std::string& json, const std::string& name = "rules.json") {
  writeFile(dir / name, json);
  return loadRuleSet(dir / name);
}

TEST(LoadRuleSet, ReadsTheDocumentedExample) {
  TempDir dir;
  const RuleSet set = load(dir, R"j({"name": "my-trainer", "counts_microbatches": false, "rules": [
    {"match": "fwd mb(\\d+)", "role": "op", "kind": "F", "mb": 1},
    {"match": "bwd_(in|wt) mb(\\d+)", "role": "op", "kind_group": 1,
     "kinds": {"in": "B", "wt": "W"}, "mb": 2},
    {"match": "send act mb(\\d+) to (\\d+)", "role": "send", "kind": "F", "mb": 1, "peer": 2},
    {"match": "iteration (\\d+)", "role": "step", "step": 1}]})j");
  EXPECT_EQ(set.name, "my-trainer");
  EXPECT_FALSE(set.countsMicrobatches);
  ASSERT_EQ(set.rules.size(), 4u);
  EXPECT_EQ(set.rules[0].source, "fwd mb(\\d+)");

  const auto fwd = set.match("fwd mb7");
  ASSERT_TRUE(fwd);
  EXPECT_EQ(fwd->role, Role::Op);
  EXPECT_EQ(fwd->kind, OpKind::F);
  EXPECT_EQ(fwd->mb, 7);
  EXPECT_EQ(set.match("bwd_in mb2")->kind, OpKind::B);
  EXPECT_EQ(set.match("bwd_wt mb2")->kind, OpKind::W);
  const auto send = set.match("send act mb4 to 3");
  ASSERT_TRUE(send);
  EXPECT_EQ(send->role, Role::Send);
  EXPECT_EQ(send->mb, 4);
  EXPECT_EQ(send->peer, 3);
  EXPECT_EQ(set.match("iteration 12")->step, 12);
  EXPECT_FALSE(set.match("bwd_xx mb2"));
}

TEST(LoadRuleSet, NameDefaultsToTheFileStemAndRoleToOp) {
  TempDir dir;
  const RuleSet set = load(dir, R"j({"counts_microbatches": true, "rules": [
    {"match": "fwd", "kind": "F"}, {"match": "opt", "role": "optimizer"},
    {"match": "ar", "role": "grad_sync"}, {"match": "loss", "role": "other"},
    {"match": "rx", "role": "recv", "kind": "B"}]})j",
                           "trainer-rules.json");
  EXPECT_EQ(set.name, "trainer-rules");
  EXPECT_TRUE(set.countsMicrobatches);
  EXPECT_EQ(set.match("fwd")->role, Role::Op);
  EXPECT_FALSE(set.match("fwd")->mb.has_value());
  EXPECT_EQ(set.match("opt")->role, Role::Optimizer);
  EXPECT_EQ(set.match("ar")->role, Role::GradSync);
  EXPECT_EQ(set.match("loss")->role, Role::OtherBusy);
  EXPECT_EQ(set.match("rx")->role, Role::Recv);
  EXPECT_EQ(set.match("rx")->kind, OpKind::B);
}

struct RefusalCase {
  const char* what;
  const char* json;
  const char* message;  // after "<file>: "
};

TEST(LoadRuleSet, RefusesMistakesNamingTheFileAndTheRule) {
  const RefusalCase cases[] = {
      {"not JSON", "{\"rules\": [", "not valid JSON"},
      {"no rules", R"j({"name": "x"})j", R"(needs a non-empty "rules" array)"},
      {"empty rules", R"j({"rules": []})j", R"(needs a non-empty "rules" array)"},
      {"rules not a list", R"j({"rules": {"match": "x"}})j", R"(needs a non-empty "rules" array)"},
      {"bad pattern", R"j({"rules": [{"match": "fwd ("}]})j", "rule 0: bad pattern 'fwd ('"},
      {"unknown role", R"j({"rules": [{"match": "x", "role": "compute"}]})j",
       "rule 0: role 'compute' is not one of op, send, recv, step, optimizer, grad_sync, other"},
      {"unknown kind", R"j({"rules": [{"match": "x", "kind": "X"}]})j",
       "rule 0: kind 'X' is not one of F, B, W, BW"},
      {"unknown kind in the table",
       R"j({"rules": [{"match": "(a)", "kind_group": 1, "kinds": {"a": "FW"}}]})j",
       "rule 0: kind 'FW' is not one of F, B, W, BW"},
      {"kind group without table", R"j({"rules": [{"match": "(a)", "kind_group": 1}]})j",
       R"(rule 0: kind_group needs a "kinds" table)"},
      {"group beyond the pattern",
       R"j({"rules": [{"match": "a"}, {"match": "fwd (\\d+)", "mb": 2}]})j",
       "rule 1: group 2 but the pattern has 1"},
      {"negative group", R"j({"rules": [{"match": "fwd (\\d+)", "step": -1}]})j",
       "rule 0: \"step\" must be a capture group number, not -1"},
      // Found by rules_json_fuzz: value<int>() of 8e74 was undefined behaviour (UBSan).
      {"group too large for an int",
       R"j({"rules": [{"match": "fwd (\\d+)", "chunk": 888888888888888888888888888888888888883}]})j",
       "rule 0: \"chunk\" must be a capture group number, not 8.888888888888889e+38"},
      {"fractional group", R"j({"rules": [{"match": "fwd (\\d+)", "mb": 1.5}]})j",
       "rule 0: \"mb\" must be a capture group number, not 1.5"},
      {"no pattern", R"j({"rules": [{"role": "op"}]})j", "match"},
      {"group not a number", R"j({"rules": [{"match": "fwd (\\d+)", "mb": "one"}]})j", "number"},
  };
  TempDir dir;
  const std::string file = (dir / "rules.json").string();
  for (const auto& c : cases) {
    try {
      load(dir, c.json);
      ADD_FAILURE() << c.what << ": accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_THAT(e.what(), ::testing::StartsWith(file + ": ")) << c.what;
      EXPECT_THAT(e.what(), HasSubstr(c.message)) << c.what;
    }
  }
}

TEST(LoadRuleSet, RefusesAMissingFileSayingSo) {
  TempDir dir;
  try {
    loadRuleSet(dir / "missing.json");
    ADD_FAILURE() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), (dir / "missing.json").string() + ": no such file or directory");
  }
}

}  // namespace
}  // namespace bubblescope::analysis
