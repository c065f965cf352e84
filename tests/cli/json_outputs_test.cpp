// The command line's own JSON, streamed: the saved hang answers (`hang --all --save`) and
// `ps --json` are byte for byte what nlohmann wrote for the same documents before they were
// streamed (issue 29), and saved answers read back as the replies that were saved.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli/live_answers.h"
#include "cli/ps_json.h"

namespace bubblescope::cli {
namespace {

control::Reply reply(std::map<std::string, std::string> fields) {
  control::Reply r;
  r.ok = true;
  r.fields = std::move(fields);
  return r;
}

std::string answersText(const std::vector<control::Reply>& replies, double minWait) {
  std::ostringstream out;
  writeAnswersJson(replies, "node-7", minWait, out);
  return out.str();
}

TEST(JsonOutputs, SavedAnswersAreOrderedDumpsBytesAndReadBackAsSaved) {
  const std::vector<control::Reply> replies = {
      reply({{"pid", "4242"},
             {"rank", "3"},
             {"run_id", "job-1"},
             {"env", "BUBBLESCOPE_PP_RANK=3\nRANK=3"},
             {"open", "step 0\tF mb=1 \"q\" \\ caf\xc3\xa9"},
             {"empty", ""}}),
      reply({}), reply({{"pid", "1"}})};
  for (double minWait : {5.0, 0.25, 0.0, 1e-7}) {
    for (const auto& list : {replies, std::vector<control::Reply>{}}) {
      const std::string text = answersText(list, minWait);
      // The file's member order is its own (tool, kind, host, ...), not sorted: ordered_json's.
      EXPECT_EQ(text, nlohmann::ordered_json::parse(text).dump(1) + "\n");
      const SavedAnswers saved = parseAnswers(text, "saved.json");
      ASSERT_EQ(saved.replies.size(), list.size());
      for (size_t i = 0; i < list.size(); ++i) {
        EXPECT_EQ(saved.replies[i].fields, list[i].fields) << i;
        EXPECT_TRUE(saved.replies[i].ok);
      }
      EXPECT_EQ(saved.minWaitSeconds, minWait);
    }
  }
  const auto j = nlohmann::json::parse(answersText(replies, 5));
  EXPECT_EQ(j["kind"], kAnswersKind);
  EXPECT_EQ(j["host"], "node-7");
  EXPECT_EQ(j["tool"], "bubblescope");
}

TEST(JsonOutputs, ProcessesAreDumpsBytesWithAStepTimeOrNull) {
  control::AgentStatus timed;
  timed.pid = 4242;
  timed.rank = 3;
  timed.localRank = 1;
  timed.worldSize = 8;
  timed.runId = "job-1";
  timed.command = "python train.py --name \"x\"";
  timed.state = "recording";
  timed.window = "open";
  timed.step = 12;
  timed.stepNs = 1'234'567'891;
  timed.file = "/tmp/run/rank-00003.sqlite";
  control::AgentStatus untimed;
  untimed.pid = 7;
  untimed.state = "no answer";
  for (const auto& rows :
       {std::vector<control::AgentStatus>{timed, untimed}, std::vector<control::AgentStatus>{}}) {
    std::ostringstream out;
    writeProcessesJson(rows, out);
    EXPECT_EQ(out.str(), nlohmann::json::parse(out.str()).dump(2) + "\n");
  }
  std::ostringstream out;
  writeProcessesJson({timed, untimed}, out);
  const auto j = nlohmann::json::parse(out.str());
  EXPECT_EQ(j[0]["step_seconds"], 1.234567891);
  EXPECT_TRUE(j[1]["step_seconds"].is_null());
  EXPECT_EQ(j[0]["pid"], 4242);
  EXPECT_EQ(j[1]["rank"], -1);
}

}  // namespace
}  // namespace bubblescope::cli
