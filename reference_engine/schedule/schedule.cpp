#include "reference_engine/schedule/schedule.h"

#include "reference_engine/schedule/schedule_table.h"

namespace bubblescope::engine {

int Schedule::virtualStage(int stage, int chunk) const {
  if (layout == ChunkLayout::V) return chunk == 0 ? stage : 2 * p - 1 - stage;
  return chunk * p + stage;
}

int Schedule::stageOf(int vs) const {
  if (layout == ChunkLayout::V) return vs < p ? vs : 2 * p - 1 - vs;
  return vs % p;
}

int Schedule::chunkOf(int vs) const {
  if (layout == ChunkLayout::V) return vs < p ? 0 : 1;
  return vs / p;
}

bool Schedule::splitsBackward() const {
  for (const auto& ops : stages) {
    for (const Op& op : ops) {
      if (op.kind == OpKind::W) return true;
    }
  }
  return false;
}

const char* scheduleName(ScheduleKind kind) {
  const NamedSchedule* named = scheduleOfKind(kind);
  return named ? named->name : "custom";
}

const std::vector<std::string>& scheduleNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> keys;
    for (const NamedSchedule& s : kSchedules) keys.emplace_back(s.key);
    return keys;
  }();
  return names;
}

Schedule Schedule::byName(const std::string& name, int p, int m, int v) {
  if (const NamedSchedule* named = scheduleByKey(name)) return named->generate(p, m, v);
  throw ScheduleError("unknown schedule '" + name + "' (known: " + scheduleKeyList() + ")");
}

}  // namespace bubblescope::engine
