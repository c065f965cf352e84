#include "tests/tracegen/truth.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <utility>

#include "tests/tracegen/p2p_order.h"

namespace bubblescope::tracegen {
namespace {

using Span = std::pair<TimeNs, TimeNs>;

std::vector<Span> merged(std::vector<Span> v) {
  std::sort(v.begin(), v.end());
  std::vector<Span> out;
  for (const Span& s : v) {
    if (s.second <= s.first) continue;
    if (!out.empty() && s.first <= out.back().second) {
      out.back().second = std::max(out.back().second, s.second);
    } else {
      out.push_back(s);
    }
  }
  return out;
}

std::vector<Span> clipped(const std::vector<Span>& v, TimeNs lo, TimeNs hi) {
  std::vector<Span> out;
  for (const Span& s : v) {
    const TimeNs a = std::max(s.first, lo), b = std::min(s.second, hi);
    if (a < b) out.push_back({a, b});
  }
  return out;
}

TimeNs length(const std::vector<Span>& v) {
  TimeNs n = 0;
  for (const Span& s : v) n += s.second - s.first;
  return n;
}

// The pipeline's span of each step: first op kernel start to the last optimizer kernel's end.
std::vector<Span> stepSpans(const JobTimeline& job) {
  std::vector<Span> spans(job.spec.steps, {INT64_MAX, INT64_MIN});
  for (const RankTimeline& tl : job.ranks) {
    for (const Kernel& k : tl.kernels) {
      int step = -1;
      if (k.kind == KernelKind::Compute) step = tl.ops[k.owner].id.step;
      if (k.kind == KernelKind::Optimizer) step = k.owner;
      if (step < 0) continue;
      if (k.kind == KernelKind::Compute) spans[step].first = std::min(spans[step].first, k.start);
      spans[step].second = std::max(spans[step].second, k.end);
    }
  }
  return spans;
}

TimeNs median(std::vector<TimeNs> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

}  // namespace

JobSpec idealSpec(const JobSpec& spec) {
  // Per kind, over every chunk: the chunks' costs differ only by jitter.
  const std::vector<PassKind> kinds = spec.schedule == JobSchedule::ZbV
                                          ? std::vector{PassKind::F, PassKind::B, PassKind::W}
                                          : std::vector{PassKind::F, PassKind::BW};
  std::map<PassKind, TimeNs> sum;
  int64_t n = 0;
  for (int d = 0; d < spec.dp; ++d) {  // job-wide, over every replica
    for (int s = 0; s < spec.p; ++s) {
      for (int k = 0; k < spec.steps; ++k) {
        for (int mb = 0; mb < spec.m; ++mb) {
          for (int chunk = 0; chunk < chunksPerStage(spec); ++chunk) {
            for (PassKind pass : kinds) sum[pass] += opCost(spec, {s, k, pass, mb, chunk}, d);
            ++n;
          }
        }
      }
    }
  }
  std::vector<TimeNs> transfers;
  for (auto [from, to] : links(spec)) {
    TimeNs t = spec.transfer;
    for (const SlowLink& l : spec.slowLinks) {
      if (l.from == from && l.to == to) t += l.extra;
    }
    transfers.push_back(t);  // one entry stands for all the link carries
  }
  JobSpec ideal = spec;
  for (PassKind pass : kinds) {
    TimeNs& cost = pass == PassKind::F    ? ideal.costF
                   : pass == PassKind::BW ? ideal.costBW
                   : pass == PassKind::B  ? ideal.costB
                                          : ideal.costW;
    cost = sum[pass] / n;
  }
  ideal.slowStage.reset();
  ideal.slowReplica.reset();
  ideal.jitter = 0;
  ideal.lateLaunches.clear();
  ideal.slowLinks.clear();
  ideal.transfer = median(transfers);
  // As the ideal schedule moves data (analysis.md §3, §5): each transfer in its transfer time from
  // when both sides are ready. Posted alone, a pair's two messages queue one behind the other on
  // the pair's stream, which fused posts would win back: that is the job's, not the ideal's.
  // ZB-V and interleaved 1F1B post each message alone whatever fuseP2p says: their ideal moves each
  // on a stream of its own, none waiting behind another. One stream for both peers queues them
  // whatever the posts: that stays the stack's, in the ideal too, as under 1F1B.
  ideal.fuseP2p = true;
  ideal.p2pStreamsQueue = chunksPerStage(spec) == 1 || spec.sharedP2pStream;
  return ideal;
}

Truth truthOf(const JobTimeline& job) {
  Truth t;
  const std::vector<Span> spans = stepSpans(job);
  t.stages.resize(job.spec.p);
  for (const RankTimeline& tl : job.ranks) {
    if (replicaOfRank(job.spec, tl.rank) != 0) continue;  // the stages' figures are replica 0's
    std::vector<Span> compute, comm, other;
    for (const Kernel& k : tl.kernels) {
      switch (k.kind) {
        case KernelKind::Compute:
          compute.push_back({k.start, k.end});
          break;
        case KernelKind::SendRecv:
        case KernelKind::AllReduce:
          comm.push_back({k.transferStart, k.end});  // before it: waiting, which is idle
          break;
        case KernelKind::Optimizer:
          other.push_back({k.start, k.end});
          break;
      }
    }
    compute = merged(compute);
    comm = merged(comm);
    other = merged(other);
    StageTruth& st = t.stages[stageOfRank(job.spec, tl.rank)];
    for (const Span& span : spans) {
      const auto c = clipped(compute, span.first, span.second);
      auto cc = clipped(comm, span.first, span.second);
      auto o = clipped(other, span.first, span.second);
      std::vector<Span> all = c;
      all.insert(all.end(), cc.begin(), cc.end());
      const TimeNs computeAndComm = length(merged(all));
      all.insert(all.end(), o.begin(), o.end());
      const TimeNs busy = length(merged(all));
      st.span += span.second - span.first;
      st.compute += length(c);
      st.comm += computeAndComm - length(c);
      st.other += busy - computeAndComm;
      st.idle += span.second - span.first - busy;
      // Holes between the kernels that are work of the stage's own (ops and optimizer).
      std::vector<Span> work = c;
      work.insert(work.end(), o.begin(), o.end());
      work = merged(work);
      TimeNs from = span.first;
      work.push_back({span.second, span.second});
      for (const Span& w : work) {
        if (w.first > from) {
          const TimeNs moving = length(clipped(cc, from, w.first));
          if (w.first - from - moving > 0) {
            st.bubbles.push_back(w.first - from - moving);
            st.bubbleSpans.push_back({from, w.first});
          }
        }
        from = std::max(from, w.second);
      }
    }
  }
  for (const Span& s : spans) t.measuredSteps.push_back(s.second - s.first);
  const JobTimeline ideal = execute(idealSpec(job.spec));
  for (const Span& s : stepSpans(ideal)) t.idealSteps.push_back(s.second - s.first);
  auto mean = [](const std::vector<TimeNs>& v) {
    return static_cast<double>(std::accumulate(v.begin(), v.end(), TimeNs{0})) /
           static_cast<double>(v.size());
  };
  t.measuredStep = mean(t.measuredSteps);
  t.idealStep = mean(t.idealSteps);
  t.slowdown = t.measuredStep / t.idealStep;
  for (const LateLaunch& late : job.spec.lateLaunches) {
    const RankTimeline& tl = job.ranks[rankOf(job.spec, late.replica, late.op.stage)];
    for (const OpRun& op : tl.ops) {
      if (op.id == late.op) {
        t.hostStall.push_back(tl.kernels[op.firstKernel].start - op.ready);
      }
    }
  }
  return t;
}

}  // namespace bubblescope::tracegen
