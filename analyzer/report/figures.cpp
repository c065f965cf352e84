#include "analyzer/report/figures.h"

#include <algorithm>
#include <numeric>

namespace bubblescope::analysis {
namespace {

bool exact(const Split& s) {
  return s.compute + s.exposedComm + s.otherBusy + s.idle == s.span && s.classSum() == s.idle;
}

}  // namespace

double bubbleShare(const Split& s) {
  return s.span > 0 ? static_cast<double>(s.idle) / static_cast<double>(s.span) : 0.0;
}

bool partsAddUp(const PipelineResult& pl) {
  Split sum;
  for (const auto& st : pl.stages) {
    Split stageSum;
    for (const Split& s : st.perStep) {
      if (!exact(s)) return false;
      stageSum += s;
    }
    if (!exact(st.total) || stageSum.span != st.total.span || stageSum.idle != st.total.idle) {
      return false;
    }
    sum += st.total;
  }
  return exact(pl.total) && sum.span == pl.total.span && sum.idle == pl.total.idle;
}

std::string scheduleDescription(const ScheduleMatch& s) {
  std::string out = s.name + " (p=" + std::to_string(s.p) + ", m=" + std::to_string(s.m);
  if (s.v > 1) out += ", v=" + std::to_string(s.v);
  return out + ")";
}

const char* shortIdleClassName(IdleClass c) {
  return idleClassInfo(c).label;
}

std::vector<int> stagesBySlowdown(const PipelineResult& pl) {
  std::vector<int> order(pl.stages.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return pl.stages[a].slowdown > pl.stages[b].slowdown; });
  return order;
}

const PipelineResult* slowestPipeline(const AnalysisResult& r) {
  const PipelineResult* worst = nullptr;
  for (const auto& pl : r.pipelines) {
    if (!worst || pl.slowdown > worst->slowdown) worst = &pl;
  }
  return worst;
}

size_t summarisedPipelines(const AnalysisResult& r) {
  return static_cast<size_t>(std::count_if(r.pipelines.begin(), r.pipelines.end(),
                                           [](const PipelineResult& pl) { return pl.summarised; }));
}

std::string summarisedPipelinesNote(const AnalysisResult& r) {
  const size_t n = summarisedPipelines(r);
  return "The other " + std::to_string(n) + " of the " + std::to_string(r.pipelines.size()) +
         " pipelines, by their figures (a summary lists " + std::to_string(r.pipelines.size() - n) +
         " whole: the culprit's, those the DP sync waited on, then the largest S_d; --detail "
         "lists every one)";
}

int largestAvoidableClass(const Split& s) {
  int best = -1;
  for (int c = 0; c < kIdleClasses; ++c) {
    if (isScheduleOwn(idleClassAt(c))) continue;
    if (s.idleByClass[c] > 0 && (best < 0 || s.idleByClass[c] > s.idleByClass[best])) best = c;
  }
  return best;
}

}  // namespace bubblescope::analysis
