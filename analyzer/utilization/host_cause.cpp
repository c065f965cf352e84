#include "analyzer/utilization/host_cause.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string_view>

namespace bubblescope::analysis {
namespace {

// Most specific first: a sync inside the optimizer is the sync.
constexpr std::array<const char*, 4> kCauses = {"synchronize", "data loading", "optimizer (host)",
                                                "host work"};
constexpr int kNotACause = -1;
constexpr int kNothing = static_cast<int>(kCauses.size());
constexpr size_t kBlock = 64;
static_assert(HostCauses::kCauseCount == kNothing + 1);
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
  const auto& r = *t.ranges;
  std::vector<int> kindOf(t.strings.size(), -2);
  auto kind = [&](traces::StringId name) {
    if (kindOf[name] == -2) kindOf[name] = kindOfRange(t.strings.at(name));
    return kindOf[name];
  };
  // Counted, then gathered into room made once: a rank holds millions of them.
  std::vector<int8_t> syncCall(t.strings.size(), -1);  // per name: a synchronize or not
  auto isSync = [&](traces::StringId name) {
    if (syncCall[name] < 0) syncCall[name] = has(t.strings.at(name), "ynchronize") ? 1 : 0;
    return syncCall[name] == 1;
  };
  auto eachActivity = [&](auto&& take) {
    for (size_t i = 0; i < r.size(); ++i) {
      if (t.strings.at(r.domain[i]) == "NCCL") continue;
      if (const int k = kind(r.name[i]); k != kNotACause) take(r.start[i], r.end[i], k, r.name[i]);
    }
    for (size_t i = 0; i < t.apiCalls->size(); ++i) {
      if (isSync(t.apiCalls->name[i]))
        take(t.apiCalls->start[i], t.apiCalls->end[i], 0, t.apiCalls->name[i]);
    }
  };
  size_t count = 0;
  eachActivity([&](TimeNs, TimeNs, int, traces::StringId) { ++count; });
  activity_.reserve(count);
  eachActivity([&](TimeNs start, TimeNs end, int k, traces::StringId name) {
    activity_.push_back({start, end, k, name});
  });
  std::sort(activity_.begin(), activity_.end(),
            [](const Activity& a, const Activity& b) { return a.start < b.start; });
  blockEnd_.assign((activity_.size() + kBlock - 1) / kBlock, INT64_MIN);
  for (size_t i = 0; i < activity_.size(); ++i) {
    TimeNs& e = blockEnd_[i / kBlock];
    e = std::max(e, activity_[i].end);
  }
}

const char* HostCauses::causeName(int cause) {
  return cause < kNothing ? kCauses[static_cast<size_t>(cause)] : "nothing";
}

std::pair<std::string, std::string> HostCauses::name(const Found& f) const {
  return {causeName(f.cause), f.hasDetail ? std::string(trace_.strings.at(f.detail)) : ""};
}

HostCauses::Found HostCauses::at(TimeNs start, TimeNs end) const {
  std::array<TimeNs, kCauses.size()> overlap{};
  std::array<traces::StringId, kCauses.size()> name{};
  // Per cause, the innermost range (the latest to open) that covers half the gap: it names what
  // the host did better than the wrapper around the whole forward.
  const TimeNs half = (end - start) / 2;
  std::array<traces::StringId, kCauses.size()> inner{};
  std::array<bool, kCauses.size()> covered{};
  auto look = [&](const Activity& a) {
    const TimeNs o = std::min(end, a.end) - std::max(start, a.start);
    if (o > overlap[a.kind]) {
      overlap[a.kind] = o;
      name[a.kind] = a.name;
    }
    if (o > 0 && o >= half && !covered[a.kind]) {
      covered[a.kind] = true;  // walking back, the first to cover is the latest to open
      inner[a.kind] = a.name;
    }
  };
  // Back from the last activity to open before the gap ends, at most kLookBack of them; one
  // that ended before the gap began changes nothing, so a block of those is passed over whole.
  const size_t last = static_cast<size_t>(
      std::lower_bound(activity_.begin(), activity_.end(), end,
                       [](const Activity& a, TimeNs t) { return a.start < t; }) -
      activity_.begin());
  const size_t first = last > static_cast<size_t>(kLookBack) ? last - kLookBack : 0;
  for (size_t i = last; i > first;) {
    const size_t block = (i - 1) / kBlock;
    const size_t from = std::max(first, block * kBlock);
    if (blockEnd_[block] > start) {
      for (size_t j = i; j-- > from;) look(activity_[j]);
    }
    i = from;
  }
  // The most specific cause that covers half the gap; else the one that covers most of it.
  for (size_t k = 0; k < kCauses.size(); ++k) {
    if (covered[k]) return {static_cast<int>(k), inner[k], true};
  }
  const auto best = std::max_element(overlap.begin(), overlap.end());
  if (*best > 0) {
    const size_t k = static_cast<size_t>(best - overlap.begin());
    return {static_cast<int>(k), name[k], true};
  }
  return {kNothing, 0, false};
}

}  // namespace bubblescope::analysis
