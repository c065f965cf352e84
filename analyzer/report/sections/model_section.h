#pragma once
// The model's check (result/model_check.h) as every report shows it: when the replay of measured
// op costs does not reproduce the job, one sentence per failed check, before anything else, and
// the what-ifs marked; in JSON, the check of the job and of every pipeline.
#include <string>
#include <vector>

#include "analyzer/report/json_writer.h"
#include "analyzer/result/result.h"

namespace bubblescope::analysis {

// One sentence per failed check (the job's first, then each pipeline's); empty when the model
// reproduces everything it measured.
std::vector<std::string> modelDoubts(const AnalysisResult& result);

// What a report says above a what-if table built on a model that does not reproduce the job.
inline constexpr const char* kUntrustedWhatIf =
    "not to be trusted: the model does not reproduce the job (see the model check above)";

// {"measured_ns", "replayed_ns", "excess", "reproduces", "largest_disagreement"}
void writeModelCheckJson(const ModelCheck& check, JsonWriter& out);

}  // namespace bubblescope::analysis
