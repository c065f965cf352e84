// Interleaved 1F1B (Narayanan et al., SC'21) in Megatron-LM's order: each stage holds v model
// chunks (chunk c of stage s is virtual stage c*p + s) and walks Megatron's schedule table.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "reference_engine/schedule/checks.h"
#include "reference_engine/schedule/schedule.h"

namespace bubblescope::engine {
namespace {

// Megatron's get_schedule_table: microbatches in groups of `group`, each group run through every
// chunk before the next group starts. Entry k is the (microbatch, chunk) of the k-th forward.
std::vector<std::pair<int, int>> scheduleTable(int m, int v, int group) {
  std::vector<std::pair<int, int>> table;
  table.reserve(static_cast<size_t>(m) * v);
  for (int first = 0; first < m; first += group) {
    const int last = std::min(first + group, m);
    for (int chunk = 0; chunk < v; ++chunk) {
      for (int mb = first; mb < last; ++mb) table.emplace_back(mb, chunk);
    }
  }
  return table;
}

}  // namespace

Schedule Schedule::interleaved1F1B(int p, int m, int v) {
  requireBasics("interleaved 1F1B", p, m);
  if (v < 2) {
    throw ScheduleError(
        "interleaved 1F1B needs at least 2 model chunks per stage (v=" + std::to_string(v) + ")");
  }
  if (m % p != 0) {
    throw ScheduleError("interleaved 1F1B needs m to be a multiple of p (m=" + std::to_string(m) +
                        ", p=" + std::to_string(p) + "), as Megatron-LM requires");
  }
  Schedule s;
  s.kind = ScheduleKind::Interleaved1F1B;
  s.p = p;
  s.m = m;
  s.v = v;
  s.layout = ChunkLayout::Looped;
  s.stages.resize(p);

  // Megatron's microbatch_group_size_per_vp_stage defaults to p.
  const auto table = scheduleTable(m, v, p);
  const int total = m * v;
  const auto forward = [&](int k) { return Op{OpKind::F, table[k].first, table[k].second}; };
  // The k-th backward runs the k-th table entry's microbatch through the chunks in reverse.
  const auto backward = [&](int k) {
    return Op{OpKind::BW, table[k].first, v - 1 - table[k].second};
  };
  for (int stage = 0; stage < p; ++stage) {
    auto& ops = s.stages[stage];
    ops.reserve(2 * static_cast<size_t>(total));
    const int warmup = std::min(2 * (p - stage - 1) + (v - 1) * p, total);
    for (int k = 0; k < warmup; ++k) ops.push_back(forward(k));
    for (int k = 0; k < total - warmup; ++k) {
      ops.push_back(forward(warmup + k));
      ops.push_back(backward(k));
    }
    for (int k = total - warmup; k < total; ++k) ops.push_back(backward(k));
  }
  return s;
}

}  // namespace bubblescope::engine
