// The schedule table: each row's generator builds its own kind with the row's flags, its
// per-stage activation formula is what its generated order holds, and every name a row goes by
// (key, alias, display name, kind) finds that row and no other.
#include "reference_engine/schedule/schedule_table.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <stdexcept>
#include <string>

#include "reference_engine/schedule/held_activations.h"

namespace bubblescope::engine {
namespace {

std::string upper(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

TEST(ScheduleTable, EachGeneratorBuildsItsRowsKindWithTheRowsChunksAndBackwardSplit) {
  for (const NamedSchedule& row : kSchedules) {
    for (int p : {1, 2, 4}) {
      const Schedule two = row.generate(p, 4 * p, 2);
      const Schedule three = row.generate(p, 4 * p, 3);
      EXPECT_EQ(two.kind, row.kind) << row.key;
      EXPECT_EQ(two.splitsBackward(), row.splitsBackward) << row.key << " p=" << p;
      // A row that takes v builds it; any other fixes its own whatever v it is given.
      EXPECT_EQ(three.v != two.v, row.takesChunks) << row.key << " p=" << p;
      if (row.takesChunks) {
        EXPECT_EQ(three.v, 3) << row.key;
      }
    }
  }
}

TEST(ScheduleTable, EachRowsActivationFormulaIsWhatItsGeneratedOrderHoldsOnEveryStage) {
  int checked = 0;
  for (const NamedSchedule& row : kSchedules) {
    for (int p = 1; p <= 8; ++p) {
      for (int m = 1; m <= 3 * p + 2; ++m) {
        for (int v : {2, 3, 4}) {
          Schedule s;
          try {
            s = row.generate(p, m, v);
          } catch (const std::invalid_argument&) {
            continue;  // parameters the schedule cannot serve (interleaved: m % p != 0)
          }
          const std::vector<double> held = heldActivations(s);
          ASSERT_EQ(held.size(), static_cast<size_t>(p));
          for (int st = 0; st < p; ++st) {
            EXPECT_DOUBLE_EQ(held[st], row.stageActivations(p, m, s.v, st))
                << row.key << " " << row.stageActivationsFormula << " p=" << p << " m=" << m
                << " v=" << s.v << " stage " << st;
            ++checked;
          }
          if (!row.takesChunks) break;  // v is the generator's own
        }
      }
    }
  }
  EXPECT_GT(checked, 3000);
}

TEST(ScheduleTable, MostActivationsOnAStageAreThePapersPeak) {
  // The papers give the peak of the busiest stage (stage 0, or every stage for the ZB family).
  for (const NamedSchedule& row : kSchedules) {
    for (auto [p, m] : {std::pair{4, 8}, std::pair{4, 4}, std::pair{3, 9}, std::pair{6, 12}}) {
      double most = 0;
      for (int st = 0; st < p; ++st) most = std::max(most, row.stageActivations(p, m, 2, st));
      EXPECT_DOUBLE_EQ(most, row.paper(p, m, 2, {}).peakActivations)
          << row.key << " p=" << p << " m=" << m;
    }
  }
}

struct HeldCase {
  const char* key;
  int v;
  std::vector<double> perStage;  // p=4, m=8
};

TEST(ScheduleTable, ActivationsHeldPerStageForFourStagesAndEightMicrobatches) {
  // In M_B, each held until its W (or BW) ends. ZB-H1 holds 1F1B's stage-0 peak on every stage:
  // its late W keep the later stages' activations; ZB-H2 holds 2p-1 everywhere.
  const HeldCase cases[] = {
      {"gpipe", 1, {8, 8, 8, 8}},
      {"1f1b", 1, {4, 3, 2, 1}},
      {"interleaved", 2, {5.5, 4.5, 3.5, 2.5}},
      {"interleaved", 3, {5, 13.0 / 3, 11.0 / 3, 3}},
      {"zb-h1", 1, {4, 4, 4, 4}},
      {"zb-h2", 1, {7, 7, 7, 7}},
      {"zb-v", 2, {4, 4, 4, 4}},
  };
  for (const HeldCase& c : cases) {
    const std::vector<double> held = heldActivations(scheduleByKey(c.key)->generate(4, 8, c.v));
    ASSERT_EQ(held.size(), c.perStage.size()) << c.key;
    for (size_t s = 0; s < held.size(); ++s) {
      EXPECT_DOUBLE_EQ(held[s], c.perStage[s]) << c.key << " v=" << c.v << " stage " << s;
    }
  }
}

TEST(ScheduleTable, EveryNameARowGoesByFindsThatRow) {
  for (const NamedSchedule& row : kSchedules) {
    EXPECT_EQ(scheduleByKey(row.key), &row) << row.key;
    EXPECT_EQ(scheduleByKey(upper(row.key)), &row) << row.key << ": keys ignore case";
    if (!row.alias.empty()) {
      EXPECT_EQ(scheduleByKey(row.alias), &row) << row.alias;
    }
    EXPECT_EQ(scheduleByName(row.name), &row) << row.name;
    EXPECT_EQ(scheduleOfKind(row.kind), &row) << row.name;
    EXPECT_STREQ(scheduleName(row.kind), row.name);
  }
}

TEST(ScheduleTable, KeysNamesAndKindsAreEachUsedOnce) {
  std::set<std::string> keys, names;
  std::set<ScheduleKind> kinds;
  for (const NamedSchedule& row : kSchedules) {
    EXPECT_TRUE(keys.insert(upper(row.key)).second) << row.key;
    if (!row.alias.empty()) {
      EXPECT_TRUE(keys.insert(upper(row.alias)).second) << row.alias;
    }
    EXPECT_TRUE(names.insert(row.name).second) << row.name;
    EXPECT_TRUE(kinds.insert(row.kind).second) << row.name;
    EXPECT_NE(row.kind, ScheduleKind::Custom) << row.name;
  }
}

TEST(ScheduleTable, NamesNoRowGoesByFindNothing) {
  EXPECT_EQ(scheduleByKey("pipedream"), nullptr);
  EXPECT_EQ(scheduleByKey(""), nullptr);
  EXPECT_EQ(scheduleByKey("interleaved 1F1B"), nullptr) << "display names are not --schedule keys";
  EXPECT_EQ(scheduleByName("interleaved"), nullptr) << "keys are not display names";
  EXPECT_EQ(scheduleByName("zb-h1"), nullptr) << "display names are matched exactly";
  EXPECT_EQ(scheduleOfKind(ScheduleKind::Custom), nullptr);
  EXPECT_STREQ(scheduleName(ScheduleKind::Custom), "custom");
}

TEST(ScheduleTable, KeyListJoinsTheKeysInTableOrderForHelpTexts) {
  EXPECT_EQ(scheduleKeyList(), "gpipe, 1f1b, interleaved, zb-h1, zb-h2, zb-v");
  EXPECT_EQ(scheduleKeyList(" or "), "gpipe, 1f1b, interleaved, zb-h1, zb-h2 or zb-v");
  EXPECT_EQ(scheduleNames().size(), kSchedules.size());
}

}  // namespace
}  // namespace bubblescope::engine
