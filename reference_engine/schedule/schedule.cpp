#include "reference_engine/schedule/schedule.h"

#include <algorithm>
#include <cctype>

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
  switch (kind) {
    case ScheduleKind::GPipe: return "GPipe";
    case ScheduleKind::OneF1B: return "1F1B";
    case ScheduleKind::Interleaved1F1B: return "interleaved 1F1B";
    case ScheduleKind::ZbH1: return "ZB-H1";
    case ScheduleKind::ZbH2: return "ZB-H2";
    case ScheduleKind::ZbV: return "ZB-V";
    case ScheduleKind::Custom: return "custom";
  }
  return "?";
}

const std::vector<std::string>& scheduleNames() {
  static const std::vector<std::string> names = {"gpipe", "1f1b",  "interleaved",
                                                 "zb-h1", "zb-h2", "zb-v"};
  return names;
}

Schedule Schedule::byName(const std::string& name, int p, int m, int v) {
  std::string key = name;
  std::transform(key.begin(), key.end(), key.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (key == "gpipe") return gpipe(p, m);
  if (key == "1f1b") return oneF1B(p, m);
  if (key == "interleaved" || key == "interleaved-1f1b") return interleaved1F1B(p, m, v);
  if (key == "zb-h1" || key == "zbh1") return zbH1(p, m);
  if (key == "zb-h2" || key == "zbh2") return zbH2(p, m);
  if (key == "zb-v" || key == "zbv") return zbV(p, m);
  std::string known;
  for (const auto& n : scheduleNames()) known += (known.empty() ? "" : ", ") + n;
  throw ScheduleError("unknown schedule '" + name + "' (known: " + known + ")");
}

}  // namespace bubblescope::engine
