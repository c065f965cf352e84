#include "analyzer/infer/v_stage.h"

#include <algorithm>

namespace bubblescope::analysis {
namespace {

bool isTransfer(CutKind k) {
  return k != CutKind::Other;
}

void byStart(std::vector<StageCall>& calls) {
  std::stable_sort(calls.begin(), calls.end(),
                   [](const StageCall& a, const StageCall& b) { return a.start < b.start; });
}

// The calls (sorted) with their group numbers: the parts both layouts share.
VStage grouped(const std::vector<StageCall>& calls, const std::vector<int>& group, int groups) {
  VStage out;
  std::vector<bool> transfer(static_cast<size_t>(groups), false);
  for (size_t i = 0; i < calls.size(); ++i)
    transfer[group[i]] = transfer[group[i]] || isTransfer(calls[i].kind);
  // A group's sends carry what the op before it made; its receives feed the op after.
  for (int first = 0; first < static_cast<int>(calls.size());) {
    size_t last = static_cast<size_t>(first);
    while (last < calls.size() && group[last] == group[first]) ++last;
    for (int sending = 1; sending >= 0; --sending) {
      for (size_t i = static_cast<size_t>(first); i < last; ++i) {
        if (!isTransfer(calls[i].kind) || isSend(calls[i].kind) != (sending == 1)) continue;
        out.calls.push_back({calls[i].kind, group[i]});
        out.rows.push_back(calls[i].row);
      }
    }
    first = static_cast<int>(last);
  }
  out.spans.resize(static_cast<size_t>(groups) + 1);
  for (int g = 0; g <= groups; ++g) out.spans[g].openedByTransfer = g > 0 && transfer[g - 1];
  return out;
}

}  // namespace

VStage vStageOnDevice(std::vector<StageCall> calls, const std::vector<TimeNs>& launches) {
  byStart(calls);
  // Launches before call i: where it cuts the run of launches.
  std::vector<int64_t> cutAt(calls.size());
  for (size_t i = 0; i < calls.size(); ++i) {
    cutAt[i] =
        std::lower_bound(launches.begin(), launches.end(), calls[i].start) - launches.begin();
  }
  std::vector<int> group(calls.size(), 0);
  int groups = 0;
  for (size_t i = 0; i < calls.size(); ++i) {
    if (i == 0 || cutAt[i] != cutAt[i - 1]) ++groups;
    group[i] = groups - 1;
  }
  VStage out = grouped(calls, group, groups);
  int64_t from = 0;
  for (size_t i = 0, g = 0; g < static_cast<size_t>(groups); ++g) {
    out.spans[g].begin = from;
    out.spans[g].end = cutAt[i];
    while (i < calls.size() && group[i] == static_cast<int>(g)) from = cutAt[i++];
  }
  out.spans[groups].begin = from;
  out.spans[groups].end = static_cast<int64_t>(launches.size());
  return out;
}

VStage vStageOnHost(std::vector<StageCall> calls, TimeNs gap) {
  byStart(calls);
  std::vector<int> group(calls.size(), 0);
  std::vector<TimeNs> groupStart, groupEnd;
  for (size_t i = 0; i < calls.size(); ++i) {
    if (groupEnd.empty() || calls[i].start - groupEnd.back() >= gap) {
      groupStart.push_back(calls[i].start);
      groupEnd.push_back(calls[i].end);
    }
    groupEnd.back() = std::max(groupEnd.back(), calls[i].end);
    group[i] = static_cast<int>(groupEnd.size()) - 1;
  }
  const int groups = static_cast<int>(groupEnd.size());
  VStage out = grouped(calls, group, groups);
  // The time before the first call and after the last is no stretch: nothing bounds it.
  for (int g = 0; g <= groups; ++g) {
    StretchSpan& s = out.spans[g];
    s.begin = g > 0 ? groupEnd[g - 1] : groups > 0 ? groupStart[0] : 0;
    s.end = g < groups ? groupStart[g] : s.begin;
    if (s.end - s.begin < gap) s.end = s.begin;
  }
  return out;
}

}  // namespace bubblescope::analysis
