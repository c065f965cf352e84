// The schedule table: each row's generator builds its own kind with the row's flags, and every
// name a row goes by (key, alias, display name, kind) finds that row and no other.
#include "reference_engine/schedule/schedule_table.h"

#include <gtest/gtest.h>

#include <cctype>
#include <set>
#include <string>

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
