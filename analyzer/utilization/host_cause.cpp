#include "analyzer/utilization/host_cause.h"

#include <algorithm>
#include <array>
#include <string_view>

namespace bubblescope::analysis {
namespace {

// Most specific first: a sync inside the optimizer is the sync.
constexpr std::array<const char*, 4> kCauses = {"synchronize", "data loading", "optimizer (host)",
                                                "host work"};
constexpr int kNotACause = -1;
// Ranges opened this many before a gap are looked at; a longer-lived one (a whole-epoch range)
// says nothing about the gap.
constexpr int kLookBack = 4096;

bool has(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

int kindOfRange(std::string_view name) {
  // Wrappers of a whole step say nothing about the gap.
  if (name.starts_with("ProfilerStep#") || name.starts_with("step ") || name == "step")
    return kNotACause;
  if (has(name, "ynchronize") || has(name, "aten::item") || has(name, "_local_scalar_dense"))
    return 0;
  if (has(name, "DataLoader") || has(name, "dataloader") || has(name, "data_loader") ||
      has(name, "__next__")) {
    return 1;
  }
  if (has(name, "Optimizer") || has(name, "optimizer")) return 2;
  return 3;
}

}  // namespace

HostCauses::HostCauses(const traces::RankTrace& t) : trace_(t) {
  const auto& r = t.ranges;
  std::vector<int> kindOf(t.strings.size(), -2);
  auto kind = [&](traces::StringId name) {
    if (kindOf[name] == -2) kindOf[name] = kindOfRange(t.strings.at(name));
    return kindOf[name];
  };
  for (size_t i = 0; i < r.size(); ++i) {
    if (t.strings.at(r.domain[i]) == "NCCL") continue;
    if (const int k = kind(r.name[i]); k != kNotACause)
      activity_.push_back({r.start[i], r.end[i], k, r.name[i]});
  }
  for (size_t i = 0; i < t.apiCalls.size(); ++i) {
    if (has(t.strings.at(t.apiCalls.name[i]), "ynchronize")) {
      activity_.push_back({t.apiCalls.start[i], t.apiCalls.end[i], 0, t.apiCalls.name[i]});
    }
  }
  std::sort(activity_.begin(), activity_.end(),
            [](const Activity& a, const Activity& b) { return a.start < b.start; });
}

std::pair<std::string, std::string> HostCauses::during(TimeNs start, TimeNs end) const {
  std::array<TimeNs, kCauses.size()> overlap{};
  std::array<traces::StringId, kCauses.size()> name{};
  // Per cause, the innermost range (the latest to open) that covers half the gap: it names what
  // the host did better than the wrapper around the whole forward.
  const TimeNs half = (end - start) / 2;
  std::array<traces::StringId, kCauses.size()> inner{};
  std::array<bool, kCauses.size()> covered{};
  auto it = std::lower_bound(activity_.begin(), activity_.end(), end,
                             [](const Activity& a, TimeNs t) { return a.start < t; });
  for (int n = 0; it != activity_.begin() && n < kLookBack; ++n) {
    --it;
    const TimeNs o = std::min(end, it->end) - std::max(start, it->start);
    if (o > overlap[it->kind]) {
      overlap[it->kind] = o;
      name[it->kind] = it->name;
    }
    if (o > 0 && o >= half && !covered[it->kind]) {
      covered[it->kind] = true;  // walking back, the first to cover is the latest to open
      inner[it->kind] = it->name;
    }
  }
  // The most specific cause that covers half the gap; else the one that covers most of it.
  for (size_t k = 0; k < kCauses.size(); ++k) {
    if (covered[k]) return {kCauses[k], std::string(trace_.strings.at(inner[k]))};
  }
  const auto best = std::max_element(overlap.begin(), overlap.end());
  if (*best > 0) {
    const size_t k = static_cast<size_t>(best - overlap.begin());
    return {kCauses[k], std::string(trace_.strings.at(name[k]))};
  }
  return {"nothing", ""};
}

}  // namespace bubblescope::analysis
