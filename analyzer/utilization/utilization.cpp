#include "analyzer/utilization/utilization.h"

#include <algorithm>
#include <array>
#include <map>
#include <set>

#include "analyzer/comm/collective_coverage.h"
#include "analyzer/comm/comm_match.h"
#include "analyzer/comm/comm_warnings.h"
#include "analyzer/infer/device_stage.h"
#include "analyzer/inventory/device_memory.h"
#include "analyzer/inventory/idle_inventory.h"
#include "analyzer/pipeline/clock_align.h"
#include "analyzer/recognize/kernel_attribution.h"
#include "analyzer/recognize/recognizer.h"
#include "analyzer/recognize/rule_set.h"
#include "analyzer/result/errors.h"
#include "analyzer/result/result.h"
#include "analyzer/utilization/copy_traffic.h"
#include "analyzer/utilization/headline.h"
#include "analyzer/utilization/host_cause.h"
#include "analyzer/utilization/largest_gaps.h"
#include "analyzer/utilization/rank_split.h"

namespace bubblescope::analysis {
namespace {

constexpr size_t kLargestGaps = 10;

// The rank's device work in its own clock; NCCL kernels with their waiting split off (computed
// on clock-aligned copies, shifted back by `offset`).
RankDevice deviceOf(const traces::RankTrace& t, const RankOps& aligned, TimeNs offset) {
  RankDevice d;
  const Launches launches = launchesOf(t);
  // kNoLaunch is INT64_MIN, a DeviceSpan's own "no launch".
  auto launchOf = [&](uint32_t c) { return launches.at(t, c); };
  const std::vector<int8_t> nccl = ncclNames(t);
  d.compute.reserve(t.kernels->size());
  for (size_t i = 0; i < t.kernels->size(); ++i) {
    if (nccl[t.kernels->name[i]] == 1) continue;
    d.compute.push_back(
        {t.kernels->start[i], t.kernels->end[i], launchOf(t.kernels->correlation[i])});
  }
  d.copies.reserve(t.memcpys->size() + t.memsets->size());
  for (size_t i = 0; i < t.memcpys->size(); ++i) {
    d.copies.push_back(
        {{t.memcpys->start[i], t.memcpys->end[i], launchOf(t.memcpys->correlation[i])},
         copyDirection(t.memcpys->copyKind[i]),
         t.memcpys->bytes[i]});
  }
  for (size_t i = 0; i < t.memsets->size(); ++i) {
    d.copies.push_back(
        {{t.memsets->start[i], t.memsets->end[i], launchOf(t.memsets->correlation[i])},
         kMemsetDirection,
         t.memsets->bytes[i]});
  }
  d.comms.reserve(aligned.commKernels.size());
  for (const CommKernel& k : aligned.commKernels) {
    CommSpan c;
    c.start = k.start - offset;
    c.end = k.end - offset;
    c.launch = k.launch == kNoLaunch ? INT64_MIN : k.launch - offset;
    c.transferStart = k.transferStart - offset;
    c.members = k.members;
    d.comms.push_back(c);
  }
  for (const StepMarker& s : aligned.steps) {
    d.stepMarkers.push_back({s.start - offset, s.end - offset});
    d.stepNumbers.push_back(s.number);
  }
  return d;
}

std::string commKinds(const traces::Run& run) {
  std::set<std::string> kinds;
  for (const auto& r : run.ranks) {
    for (traces::NcclOp op : r.ncclCalls->op) {
      if (traces::isPointToPoint(op)) {
        kinds.insert("send/recv");
      } else if (traces::isCollective(op)) {
        kinds.insert(traces::ncclOpInfo(op).human);
      }
    }
  }
  std::string s;
  for (const std::string& k : kinds) s += (s.empty() ? "" : ", ") + k;
  return s;
}

}  // namespace

UtilizationResult utilizationOf(const traces::Run& run, bool alignClocks,
                                std::vector<std::string>* warnings) {
  const size_t n = run.ranks.size();
  std::vector<RankOps> ops(n);
  for (size_t r = 0; r < n; ++r) ops[r] = recognizeWith(run.ranks[r], commonMarkers());
  const CommMatches comms = matchComms(run, ops);
  std::vector<TimeNs> offsets;
  if (alignClocks) offsets = clockOffsetsFromComms(comms, ops);
  offsets.resize(n, 0);
  for (size_t r = 0; r < n; ++r) shiftTimes(ops[r], offsets[r]);
  splitCommKernels(comms, ops);
  if (warnings) {
    for (std::string& w : commWarnings(comms)) warnings->push_back(std::move(w));
  }

  UtilizationResult out;
  out.commKinds = commKinds(run);
  out.collectives = collectiveCoverage(comms);
  const std::vector<int> global = globalRanks(run);
  LargestGaps largest(kLargestGaps);
  std::array<IdleCause, HostCauses::kCauseCount> byCause{};
  for (size_t r = 0; r < n; ++r) {
    const traces::RankTrace& t = run.ranks[r];
    const RankDevice device = deviceOf(t, ops[r], offsets[r]);
    ops[r] = RankOps{};  // what the split needs of it is in `device`
    if (device.compute.empty() && device.comms.empty() && device.copies.empty()) continue;
    out.stepsFromMarkers = out.stepsFromMarkers || !device.stepMarkers.empty();
    RankUtilization ru;
    ru.rank = global[r];
    ru.file = t.file.filename().string();
    const HostCauses host(t);
    // The gaps are in the rank's own clock, as are its memory samples.
    const DeviceMemorySeries memory = deviceMemoryOf(t, 0);
    // Each gap is counted as the split finds it and kept only when it is among the largest.
    IdleTally tally;
    RankSplit split = splitRank(device, [&](const StepGap& g) {
      const TimeNs length = g.end - g.start;
      const int64_t free =
          memory.freeKnown() ? memory.leastFree(g.start, g.end) : traces::kBytesUnknown;
      addIdle(tally, {static_cast<int>(g.step), length, free});
      const HostCauses::Found found = host.at(g.start, g.end);
      IdleCause& c = byCause[static_cast<size_t>(found.cause)];
      c.idle += length;
      ++c.gaps;
      if (largest.wants(length)) {
        auto [cause, detail] = host.name(found);
        largest.add(
            IdleGap{ru.rank, g.number, g.start, g.end, std::move(cause), std::move(detail), free});
      }
    });
    if (!split.steps.empty()) {
      addCopyTraffic(out.copies, copyTraffic(device.copies, split.copiesAlone,
                                             split.steps.front().start, split.steps.back().end));
    }
    for (const UtilizationStep& s : split.steps) ru.total += s.split;
    ru.steps = std::move(split.steps);
    ru.inventory = idleInventory(tally, ru.steps.size(), memory.basis, memory.capacity);
    out.total += ru.total;
    out.ranks.push_back(std::move(ru));
  }
  if (out.ranks.empty()) {
    throw AnalysisInputError(run.dir.string() + ": no GPU kernels, copies or NCCL kernels in " +
                             std::to_string(n) + " trace(s): nothing to measure utilization on");
  }
  out.largestGaps = std::move(largest).take();
  // By name, then by idle: the order the causes had when each gap carried its cause's name.
  std::map<std::string, IdleCause> causes;
  for (int k = 0; k < HostCauses::kCauseCount; ++k) {
    IdleCause c = byCause[static_cast<size_t>(k)];
    if (c.gaps == 0) continue;
    c.cause = HostCauses::causeName(k);
    causes.emplace(c.cause, c);
  }
  for (auto& [name, c] : causes) out.idleByCause.push_back(c);
  std::sort(out.idleByCause.begin(), out.idleByCause.end(),
            [](const IdleCause& a, const IdleCause& b) { return a.idle > b.idle; });

  std::vector<TimeNs> times;
  TimeNs sum = 0;
  for (const RankUtilization& ru : out.ranks) {
    for (const UtilizationStep& s : ru.steps) {
      times.push_back(s.split.span);
      sum += s.split.span;
      if (s.split.span > out.slowestStepTime) {
        out.slowestStepTime = s.split.span;
        out.slowestRank = ru.rank;
        out.slowestStep = s.number;
      }
    }
  }
  if (!times.empty()) {
    std::nth_element(times.begin(), times.begin() + static_cast<std::ptrdiff_t>(times.size() / 2),
                     times.end());
    out.medianStepTime = times[times.size() / 2];
    out.meanStepTime = sum / static_cast<TimeNs>(times.size());
  }
  out.headline = utilizationHeadline(out);
  return out;
}

}  // namespace bubblescope::analysis
