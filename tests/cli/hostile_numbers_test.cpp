// Numbers found by the adversarial probes of issue 28: an integer narrowed without a range check
// (read as another number), a number on the command line that was not one (nan, inf, out of
// range), a report field of the wrong type. Each is refused in one line naming the file, field or
// option, exit code 2.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"

namespace bubblescope::testing {
namespace {

namespace fs = std::filesystem;

ProcessOptions quick() {
  ProcessOptions o;
  o.timeout = std::chrono::seconds(20);
  o.env = {{"DISPLAY", ":987"}};  // view: no window is ever needed to refuse an input
  return o;
}

// Exit code 2 and one line that says `mustSay`.
void expectOneLine(const ProcessResult& r, const std::string& mustSay) {
  EXPECT_FALSE(r.timedOut) << "hung: " << mustSay;
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(mustSay), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// Two processes' answers as `hang --all --save` writes them.
const std::string kAnswers = R"J({"tool": "bubblescope", "kind": "hang-answers", "host": "n0",
 "answers": [
  {"pid": "12", "rank": "0", "world_size": "2", "run_id": "r", "alive_ns": "1000000000",
   "open_ranges": "0", "nccl_calls": "0", "call_counts": "0"},
  {"pid": "13", "rank": "1", "world_size": "2", "run_id": "r", "alive_ns": "1000000000",
   "open_ranges": "0", "nccl_calls": "0", "call_counts": "0", "env.BUBBLESCOPE_PP_RANK": "1"}]})J";

// "rank": "4294967297" was read as rank 1.
TEST(HostileNumbers, SavedHangAnswersOutOfRangeAreRefusedNamingTheFileAndField) {
  TempDir tmp;
  const fs::path file = tmp / "answers.json";
  writeFile(file, kAnswers);
  const ProcessResult good = runBubblescope({"hang", file.string()}, quick());
  ASSERT_EQ(good.exitCode, 0) << good.err;
  struct Case {
    std::string from, to, says;
  };
  const std::string f = file.string();
  const Case cases[] = {
      {R"("rank": "1")", R"("rank": "4294967297")",
       f + ": the answer of pid 13: field 'rank' = '4294967297' is not a whole number from -1 to "
           "2147483647"},
      {R"("rank": "1")", R"("rank": "one")", f + ": the answer of pid 13: field 'rank' = 'one'"},
      {R"("rank": "1")", R"("rank": "1.5")", f + ": the answer of pid 13: field 'rank' = '1.5'"},
      {R"("rank": "1")", R"("rank": "-2")", f + ": the answer of pid 13: field 'rank' = '-2'"},
      {R"("world_size": "2", "run_id": "r", "alive_ns": "1000000000",
   "open_ranges": "0", "nccl_calls": "0", "call_counts": "0", "env)",
       R"("world_size": "2147483648", "run_id": "r", "alive_ns": "1000000000",
   "open_ranges": "0", "nccl_calls": "0", "call_counts": "0", "env)",
       f + ": the answer of pid 13: field 'world_size' = '2147483648' is not a whole number"},
      {R"("pid": "13")", R"("pid": "0")", f + ": the answer of pid 0: field 'pid' = '0'"},
      {R"("env.BUBBLESCOPE_PP_RANK": "1")", R"("env.BUBBLESCOPE_PP_RANK": "4294967297")",
       f + " (the answer of pid 13): meta BUBBLESCOPE_PP_RANK = '4294967297' is not a whole "
           "number from 0 to 2147483646"},
      {R"("env.BUBBLESCOPE_PP_RANK": "1")", R"("env.BUBBLESCOPE_DP_RANK": "-1")",
       f + " (the answer of pid 13): meta BUBBLESCOPE_DP_RANK = '-1' is not a whole number"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.to);
    writeFile(file, replaced(kAnswers, c.from, c.to));
    expectOneLine(runBubblescope({"hang", file.string()}, quick()), c.says);
  }
}

}  // namespace
}  // namespace bubblescope::testing
