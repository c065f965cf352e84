#include "reference_engine/sim/timeline_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace bubblescope::engine {
namespace {

// Fewer columns than this cannot show even one op label.
constexpr int kMinColumns = 4;

// The most an op's cell can say: "F3.1", else "F3", else "F" (else just its first letter).
std::string opText(const Op& op, bool showChunk, int columns) {
  std::string text = kindName(op.kind) + std::to_string(op.mb);
  if (showChunk && static_cast<int>(text.size()) + 2 <= columns) {
    return text + "." + std::to_string(op.chunk);
  }
  if (static_cast<int>(text.size()) <= columns) return text;
  return kindName(op.kind);
}

std::string msText(TimeNs ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(ns) / 1e6);
  return buf;
}

}  // namespace

std::string renderTimeline(const std::vector<std::vector<TimedOp>>& stages,
                           const TimelineStyle& style) {
  TimeNs t0 = std::numeric_limits<TimeNs>::max();
  TimeNs t1 = 0;
  for (const auto& ops : stages) {
    for (const auto& op : ops) {
      t0 = std::min(t0, op.start);
      t1 = std::max(t1, op.end);
    }
  }
  if (t0 > t1) t0 = t1 = 0;  // no ops at all
  if (style.fromZero) t0 = std::min<TimeNs>(0, t0);
  const std::string lastStage = std::to_string(stages.empty() ? 0 : stages.size() - 1);
  const int labelWidth = static_cast<int>(lastStage.size()) + 1;            // "s" + digits
  const int columns = std::max(kMinColumns, style.width - labelWidth - 3);  // " |" ... "|"
  const TimeNs length = std::max<TimeNs>(1, t1 - t0);
  const auto column = [&](TimeNs t) {
    // Rounded: an op covers the columns whose middle it covers.
    return static_cast<int>(
        std::llround(static_cast<double>(t - t0) * columns / static_cast<double>(length)));
  };

  std::string out;
  for (size_t s = 0; s < stages.size(); ++s) {
    std::string row(columns, '.');
    for (const auto& timed : stages[s]) {
      const int c0 = std::clamp(column(timed.start), 0, columns - 1);
      const int c1 = std::clamp(column(timed.end), 0, columns);
      const std::string kind = kindName(timed.op.kind);
      if (c1 <= c0) {
        if (row[c0] == '.') row[c0] = kind[0];
        continue;
      }
      const std::string shown = opText(timed.op, style.showChunk, c1 - c0);
      for (int c = c0; c < c1; ++c) {
        const size_t k = static_cast<size_t>(c - c0);
        row[c] = k < shown.size() ? shown[k] : '-';
      }
    }
    std::string label = "s" + std::to_string(s);
    label.resize(labelWidth, ' ');
    out += label + " |" + row + "|\n";
  }
  // Time axis: start under the first column, end under the last.
  std::string axis(labelWidth + 2, ' ');
  const std::string start = msText(t0);
  const std::string end = msText(t1) + " ms";
  axis += start;
  const int pad = columns + 1 - static_cast<int>(start.size()) - static_cast<int>(end.size());
  axis += std::string(std::max(1, pad), ' ') + end;
  out += axis + "\n";
  return out;
}

std::vector<std::vector<TimedOp>> timedOps(const Schedule& schedule, const SimResult& result) {
  std::vector<std::vector<TimedOp>> stages(schedule.stages.size());
  for (size_t s = 0; s < stages.size(); ++s) {
    const auto& ops = schedule.stages[s];
    stages[s].reserve(ops.size());
    for (size_t i = 0; i < ops.size(); ++i) {
      const OpTiming& t = result.stages[s].ops[i];
      stages[s].push_back({ops[i], t.start, t.end});
    }
  }
  return stages;
}

}  // namespace bubblescope::engine
