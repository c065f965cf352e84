#include "analyzer/recognize/steps.h"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <tuple>

namespace bubblescope::analysis {
namespace {

// The index of the marker whose [start, end] holds a time (the last marker starting at or before
// it, if it has not ended); -1 if none. Markers are sorted by start and disjoint. For times that
// come mostly in order (a rank's ops and transfers, by start): a few markers on from the last
// answer, a search only where a time jumps ahead or goes back. A search a time over 10^6 markers
// was ~2% of a 10^6-step analysis, on its one thread (issue 28).
class StepFinder {
 public:
  explicit StepFinder(const std::vector<StepMarker>& steps) : steps_(steps) {}

  int at(TimeNs t) {
    // next_: the first marker starting after the last time asked; every marker before it
    // starts no later than that time.
    const auto begin = steps_.begin();
    auto from = begin, to = steps_.end();
    if (next_ > 0 && steps_[next_ - 1].start <= t) {
      from = begin + static_cast<std::ptrdiff_t>(next_);
      for (int walked = 0; from != to && from->start <= t && walked < kWalk; ++walked) ++from;
      if (from != to && from->start <= t) from = upperBound(from, to, t);
    } else if (next_ > 0) {
      // Back before the last answer's marker: the answer is before it.
      from = upperBound(begin, begin + static_cast<std::ptrdiff_t>(next_ - 1), t);
    } else {
      from = upperBound(begin, to, t);
    }
    next_ = static_cast<size_t>(from - begin);
    if (from == begin) return -1;
    const auto it = std::prev(from);
    return t <= it->end ? static_cast<int>(it - begin) : -1;
  }

 private:
  using It = std::vector<StepMarker>::const_iterator;
  static constexpr int kWalk = 8;
  static It upperBound(It from, It to, TimeNs t) {
    return std::upper_bound(from, to, t, [](TimeNs v, const StepMarker& s) { return v < s.start; });
  }
  const std::vector<StepMarker>& steps_;
  size_t next_ = 0;
};

// Labels without microbatch ids (numbered only after the cut) show no microbatch 0: there a
// step starts at the first op and at the first op launched after each optimizer step.
std::vector<TimeNs> startsAfterOptimizer(const RankOps& ops, const std::vector<TimeNs>& launches) {
  std::vector<TimeNs> starts = {launches.front()};
  for (const Interval& opt : ops.optimizer) {
    auto it = std::lower_bound(launches.begin(), launches.end(), opt.end);
    if (it != launches.end() && *it > starts.back()) starts.push_back(*it);
  }
  return starts;
}

// A stage waits for a step's first input in a receive of activations that it began after its
// previous op and before the step's first op (launched at `first`): the step starts there.
TimeNs withInputReceive(const RankOps& ops, const std::vector<TimeNs>& launches, TimeNs first) {
  auto prev = std::lower_bound(launches.begin(), launches.end(), first);
  const TimeNs after = prev == launches.begin() ? INT64_MIN : *std::prev(prev);
  auto c = std::upper_bound(ops.comms.begin(), ops.comms.end(), after,
                            [](TimeNs t, const RecognizedComm& r) { return t < r.start; });
  for (; c != ops.comms.end() && c->start < first; ++c) {
    if (!c->send && c->pass == OpKind::F) return c->start;
  }
  return first;
}

// No markers: a step starts at each F of microbatch 0, chunk 0 after the first (or with the
// receive of its input), and ends where the next one starts (the last at the last op's end).
void inferSteps(RankOps& ops) {
  std::vector<TimeNs> launches;
  for (size_t i = 0; i < ops.ops.size(); ++i) launches.push_back(ops.hostOf(i).launch);
  std::sort(launches.begin(), launches.end());
  std::vector<TimeNs> starts;
  for (size_t i = 0; i < ops.ops.size(); ++i) {
    const Op& op = ops.ops[i].op;
    if (op.kind == OpKind::F && op.mb == 0 && op.chunk == 0) starts.push_back(ops.hostOf(i).launch);
  }
  if (starts.empty() && !ops.ops.empty()) starts = startsAfterOptimizer(ops, launches);
  for (size_t i = 1; i < starts.size(); ++i) starts[i] = withInputReceive(ops, launches, starts[i]);
  TimeNs lastEnd = 0;
  for (const auto& o : ops.ops) lastEnd = std::max(lastEnd, o.end);
  for (const auto& c : ops.comms) lastEnd = std::max(lastEnd, c.end);
  for (const auto& i : ops.optimizer) lastEnd = std::max(lastEnd, i.end);
  for (size_t i = 0; i < starts.size(); ++i) {
    // Work before the first F (a RECV of its input) belongs to the first step.
    const TimeNs start =
        i == 0 ? std::min(starts[0], ops.comms.empty() ? starts[0] : ops.comms.front().start)
               : starts[i];
    const TimeNs end = i + 1 < starts.size() ? starts[i + 1] - 1 : lastEnd;
    ops.steps.push_back({static_cast<int64_t>(i), start, end});
  }
}

// The step of a host range [start, end]: the marker holding its start, or, when it began a little
// before a marker that holds its end, that one. A training loop can open its step range just
// after the step's first op began (torch's profiler.step() inside the first op's annotation);
// a step's ops never run into the next step's range, so the later marker is the step.
// `starts` and `ends` find the markers of the ranges' starts and ends, asked in order.
int stepOfRange(const std::vector<StepMarker>& steps, StepFinder& starts, StepFinder& ends,
                TimeNs start, TimeNs end) {
  const int atStart = starts.at(start);
  const int atEnd = ends.at(end);
  if (atEnd >= 0 && atEnd != atStart && steps[atEnd].start > start) return atEnd;
  return atStart;
}

}  // namespace

void cutSteps(RankOps& ops) {
  std::sort(ops.steps.begin(), ops.steps.end(),
            [](const StepMarker& a, const StepMarker& b) { return a.start < b.start; });
  if (ops.steps.empty()) inferSteps(ops);
  StepFinder starts(ops.steps), ends(ops.steps);
  for (size_t i = 0; i < ops.ops.size(); ++i) {
    const HostSpan host = ops.hostOf(i);
    ops.ops[i].step =
        stepOfRange(ops.steps, starts, ends, host.launch, std::max(host.launch, host.end));
  }
  StepFinder comms(ops.steps);
  for (size_t i = 0; i < ops.comms.size(); ++i) ops.comms[i].step = comms.at(ops.launchOf(i));
  // Device work by its host launch: the GPU runs behind the CPU, so a kernel's own time can fall
  // in the next step's range.
  StepFinder other(ops.steps), comm(ops.steps);
  for (auto& w : ops.otherKernels) w.step = other.at(w.launch != kNoLaunch ? w.launch : w.start);
  for (auto& w : ops.commKernels) w.step = comm.at(w.launch != kNoLaunch ? w.launch : w.start);
}

void numberMicrobatchesByOrder(RankOps& ops) {
  std::map<std::tuple<int, OpKind, int>, int> opCount;
  for (auto& o : ops.ops) {
    if (o.op.mb < 0) o.op.mb = opCount[{o.step, o.op.kind, o.op.chunk}]++;
  }
  std::map<std::tuple<int, bool, OpKind, int>, int> commCount;
  for (auto& c : ops.comms) {
    if (c.mb < 0) c.mb = commCount[{c.step, bool{c.send}, OpKind{c.pass}, int{c.chunk}}]++;
  }
}

}  // namespace bubblescope::analysis
