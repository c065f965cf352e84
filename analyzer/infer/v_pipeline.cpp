#include "analyzer/infer/v_pipeline.h"

#include <cstdlib>

#include "analyzer/infer/v_schedule.h"

namespace bubblescope::analysis {

VPipeline readVPipeline(const std::vector<VStage>& stages, const std::vector<int64_t>& slack) {
  VPipeline out;
  const int p = static_cast<int>(stages.size());
  std::vector<std::vector<VCall>> calls;
  for (const VStage& s : stages) calls.push_back(s.calls);
  VScheduleMatch match = matchVSchedule(calls);
  if (!match.matched) {
    out.why = "its calls are in no known V schedule's order";
    return out;
  }
  out.isV = true;
  out.schedule = match.name;
  out.m = match.m;
  const std::vector<std::vector<VOp>>& ops = match.ops;
  std::vector<OpCosts> costs(p);
  for (int s = 0; s < p; ++s) costs[s] = learnCosts(stages[s].spans, ops[s]);
  out.stages.resize(p);
  for (int s = 0; s < p; ++s) {
    OpCosts filled = costs[s];
    std::vector<bool> used(6, false);
    for (const VOp& o : ops[s]) used[typeOf(o.kind, o.chunk)] = true;
    for (int t = 0; t < 6; ++t) {
      if (filled[t] > 0 || !used[t]) continue;
      for (int d = 1; d < p && filled[t] == 0; ++d) {
        for (int q : {s - d, s + d}) {
          if (q >= 0 && q < p && filled[t] == 0) filled[t] = costs[q][t];
        }
      }
      ++out.guessedCosts;
    }
    VStageOps& st = out.stages[s];
    st.ops = splitStretches(stages[s].spans, ops[s], filled, slack[s]);
    // What no op covers: whole stretches with none, and heads cut off a stretch.
    std::vector<bool> holds(stages[s].spans.size(), false);
    for (const VOp& o : ops[s]) {
      if (static_cast<size_t>(o.stretch) < holds.size()) holds[o.stretch] = true;
    }
    for (size_t g = 0; g < holds.size(); ++g) {
      const StretchSpan& span = stages[s].spans[g];
      if (!holds[g] && span.end > span.begin) st.other.emplace_back(span.begin, span.end);
    }
    for (size_t i = 0; i < st.ops.size(); ++i) {
      const StretchSpan& span = stages[s].spans[st.ops[i].op.stretch];
      const bool first = i == 0 || st.ops[i - 1].op.stretch != st.ops[i].op.stretch;
      if (first && st.ops[i].begin > span.begin) st.other.emplace_back(span.begin, st.ops[i].begin);
    }
    for (size_t i = 0; i < stages[s].rows.size(); ++i) {
      if (stages[s].rows[i] >= 0) st.messageOfRow[stages[s].rows[i]] = match.messages[s][i];
    }
  }
  return out;
}

}  // namespace bubblescope::analysis
