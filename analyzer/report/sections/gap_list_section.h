#pragma once
// Every gap of a pipeline, one line each, in step and stage order: the text report's detail
// (report_style.h), for a user who wants the record behind the summary's root causes.
#include <ostream>

#include "analyzer/result/result.h"

namespace bubblescope::analysis {

void writeGapListText(const PipelineResult& pl, std::ostream& out);

}  // namespace bubblescope::analysis
