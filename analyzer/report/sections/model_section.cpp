#include "analyzer/report/sections/model_section.h"

namespace bubblescope::analysis {
namespace {

std::string doubt(const std::string& what, const ModelCheck& c) {
  std::string s = "the model does not reproduce " + what + ": " + modelCheckSentence(c);
  if (!c.largest.empty()) s += "; " + c.largest;
  return s + ". It assumes a dependency or a cost the job did not have: its what-ifs are not to "
             "be trusted";
}

}  // namespace

std::vector<std::string> modelDoubts(const AnalysisResult& r) {
  std::vector<std::string> out;
  if (r.job.present && r.job.steps > 0 && !r.job.model.reproduces) {
    out.push_back(doubt("the job", r.job.model));
  }
  for (const PipelineResult& pl : r.pipelines) {
    if (pl.model.reproduces) continue;
    out.push_back(doubt(r.pipelines.size() > 1 ? "pipeline " + std::to_string(pl.dpRank)
                                               : std::string("the pipeline"),
                        pl.model));
  }
  return out;
}

void writeModelCheckJson(const ModelCheck& c, JsonWriter& out) {
  out.beginObject();
  out.field("excess", c.excess());
  out.field("largest_disagreement", c.largest);
  out.field("measured_ns", c.measured);
  out.field("replayed_ns", c.replayed);
  out.field("reproduces", c.reproduces);
  out.endObject();
}

}  // namespace bubblescope::analysis
