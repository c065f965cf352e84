#pragma once
// The idle classes (analysis.md §3) and everything a report, an export or the viewer says or shows
// of one: its JSON key, name, short labels, colors, one-line description and whether the ideal
// schedule itself leaves it, in one table so a class reads and looks the same everywhere. Add a
// class here and every output follows.
#include <array>
#include <cstdint>

namespace bubblescope::analysis {

enum class IdleClass : uint8_t {
  Warmup,          // the pipeline filling, as far as the ideal schedule also waits
  Drain,           // the pipeline emptying, as far as the ideal schedule also waits
  ScheduleBubble,  // gaps the schedule itself leaves mid-step
  Imbalance,       // extra idle explained by per-stage mean op costs being unequal
  Jitter,          // extra idle explained by per-op costs around the stage means
  CommStall,       // data arrived late although its producer had finished
  HostStall,       // the op was ready but the host did not launch it (busy elsewhere)
  DpSync,          // waiting at the DP gradient sync for a replica that arrived later
  OtherStall,      // what none of the above explains
};

struct Rgb {
  uint8_t r = 0, g = 0, b = 0;
  bool operator==(const Rgb&) const = default;
};

// Bubbles the schedule leaves are blue, what balance or steadier ops would win back is amber,
// stalls are red: in the reports, the terminal and the viewer alike.
struct IdleClassInfo {
  IdleClass cls;
  // The ideal schedule leaves it too (warm-up, drain, its own mid-step bubbles): no better balance
  // or steadier op wins it back, so it is not "avoidable" idle.
  bool scheduleOwn;
  const char* key;          // JSON key and Perfetto slice name: "stall_comm"
  const char* name;         // "stall: comm"
  const char* label;        // table header, ≤ 12 characters: "imbal."
  const char* column;       // text report column, ≤ 8 characters: "st:comm"
  Rgb rgb;                  // reports, SVG and the viewer
  const char* ansi;         // terminal color escape
  const char* chromeColor;  // chrome://tracing's reserved color name ("cname"; Perfetto ignores it)
  const char* description;  // one line, for legends and tooltips
};

inline constexpr IdleClassInfo kIdleClassTable[] = {
    {IdleClass::Warmup, true, "warmup", "warm-up bubble", "warm-up", "warm-up",
     {0x93, 0xc5, 0xfd}, "\033[34m", "grey",
     "the pipeline filling, as the ideal schedule also waits"},
    {IdleClass::Drain, true, "drain", "drain bubble", "drain", "drain", {0x3b, 0x82, 0xf6},
     "\033[34m", "thread_state_sleeping",
     "the pipeline emptying, as the ideal schedule also waits"},
    {IdleClass::ScheduleBubble, true, "schedule", "schedule bubble", "sched.", "sched",
     {0xa5, 0xb4, 0xfc}, "\033[34m", "white", "gaps the schedule itself leaves mid-step"},
    {IdleClass::Imbalance, false, "imbalance", "imbalance", "imbal.", "imbal", {0xf5, 0x9e, 0x0b},
     "\033[33m", "yellow", "idle from unequal per-stage op costs"},
    {IdleClass::Jitter, false, "jitter", "jitter", "jitter", "jitter", {0xfc, 0xd3, 0x4d},
     "\033[33m", "rail_idle", "idle from op costs varying around their mean"},
    {IdleClass::CommStall, false, "stall_comm", "stall: comm", "stall: comm", "st:comm",
     {0xef, 0x44, 0x44}, "\033[31m", "bad", "data arrived late although its producer had finished"},
    {IdleClass::HostStall, false, "stall_host", "stall: host", "stall: host", "st:host",
     {0x99, 0x1b, 0x1b}, "\033[31m", "terrible", "the op was ready but the host did not launch it"},
    {IdleClass::DpSync, false, "dp_sync", "wait: DP sync", "DP sync", "dp-sync",
     {0xa7, 0x8b, 0xfa}, "\033[35m", "olive",
     "waiting at the DP gradient sync for a replica that arrived later"},
    {IdleClass::OtherStall, false, "stall_other", "stall: other", "stall: other", "st:other",
     {0xfc, 0xa5, 0xa5}, "\033[31m", "black", "what none of the above explains"},
};
inline constexpr int kIdleClasses = static_cast<int>(std::size(kIdleClassTable));

constexpr bool idleClassTableInEnumOrder() {
  for (int i = 0; i < kIdleClasses; ++i) {
    if (static_cast<int>(kIdleClassTable[i].cls) != i) return false;
  }
  return true;
}
static_assert(idleClassTableInEnumOrder(), "kIdleClassTable must list the classes in enum order");
static_assert(static_cast<int>(IdleClass::OtherStall) == kIdleClasses - 1,
              "every IdleClass needs a row in kIdleClassTable");

constexpr const IdleClassInfo& idleClassInfo(IdleClass c) {
  return kIdleClassTable[static_cast<int>(c)];
}
constexpr IdleClass idleClassAt(int i) {
  return static_cast<IdleClass>(i);
}
constexpr const char* idleClassName(IdleClass c) {
  return idleClassInfo(c).name;
}
constexpr const char* idleClassKey(IdleClass c) {
  return idleClassInfo(c).key;
}
constexpr bool isScheduleOwn(IdleClass c) {
  return idleClassInfo(c).scheduleOwn;
}
// A stall: idle beyond what the op costs explain, with a comm, host or other cause.
constexpr bool isStall(IdleClass c) {
  return c == IdleClass::CommStall || c == IdleClass::HostStall || c == IdleClass::OtherStall;
}

}  // namespace bubblescope::analysis
