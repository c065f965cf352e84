// The idle-class table: one row per class, in enum order, and nothing two classes share that a
// reader tells them apart by (key, name, labels, colors), so every report and the viewer agree.
#include "analyzer/result/idle_class.h"
#include "analyzer/result/result.h"

#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <string>
#include <tuple>

namespace bubblescope::analysis {
namespace {

TEST(IdleClassTable, EveryClassHasItsOwnKeyNameLabelsAndColor) {
  std::set<std::string> keys, names, labels, columns;
  std::set<std::tuple<int, int, int>> colors;
  std::set<std::string> chrome;
  for (int c = 0; c < kIdleClasses; ++c) {
    const IdleClassInfo& info = idleClassInfo(idleClassAt(c));
    EXPECT_EQ(static_cast<int>(info.cls), c);
    keys.insert(info.key);
    names.insert(info.name);
    labels.insert(info.label);
    columns.insert(info.column);
    colors.insert({info.rgb.r, info.rgb.g, info.rgb.b});
    chrome.insert(info.chromeColor);
    EXPECT_LE(std::strlen(info.label), 12u) << info.name;
    EXPECT_LE(std::strlen(info.column), 8u) << info.name << ": the text report's column is 9 wide";
    EXPECT_GT(std::strlen(info.description), 10u) << info.name;
  }
  for (const auto* set : {&keys, &names, &labels, &columns, &chrome}) {
    EXPECT_EQ(set->size(), static_cast<size_t>(kIdleClasses));
  }
  EXPECT_EQ(colors.size(), static_cast<size_t>(kIdleClasses));
}

TEST(IdleClassTable, JsonKeysAndNamesStayWhatReportsAndBaselinesUse) {
  // Baselines written by older versions name classes by these keys: they must not change.
  EXPECT_STREQ(idleClassKey(IdleClass::Warmup), "warmup");
  EXPECT_STREQ(idleClassKey(IdleClass::CommStall), "stall_comm");
  EXPECT_STREQ(idleClassKey(IdleClass::OtherStall), "stall_other");
  EXPECT_STREQ(idleClassName(IdleClass::Drain), "drain bubble");
  EXPECT_STREQ(idleClassName(IdleClass::HostStall), "stall: host");
}

TEST(IdleClassTable, ScheduleOwnIdleIsWarmupDrainAndScheduleBubbles) {
  for (int c = 0; c < kIdleClasses; ++c) {
    const IdleClass cls = idleClassAt(c);
    EXPECT_EQ(isScheduleOwn(cls), cls == IdleClass::Warmup || cls == IdleClass::Drain ||
                                      cls == IdleClass::ScheduleBubble)
        << idleClassName(cls);
  }
}

TEST(AvoidableIdle, IsTheIdleTheIdealScheduleDoesNotLeave) {
  Gap g;
  g.idle = 100;
  g.byClass[static_cast<int>(IdleClass::Warmup)] = 10;
  g.byClass[static_cast<int>(IdleClass::Drain)] = 20;
  g.byClass[static_cast<int>(IdleClass::ScheduleBubble)] = 5;
  g.byClass[static_cast<int>(IdleClass::Imbalance)] = 40;
  g.byClass[static_cast<int>(IdleClass::HostStall)] = 25;
  EXPECT_EQ(scheduleOwnIdle(g.byClass), 35);
  EXPECT_EQ(avoidableIdle(g), 65);
  Split s;
  s.idle = g.idle;
  s.idleByClass = g.byClass;
  EXPECT_EQ(avoidableIdle(s), 65);
}

}  // namespace
}  // namespace bubblescope::analysis
