#pragma once
// Where each stage's time went, as an SVG chart: one horizontal bar per stage (and one for the
// whole pipeline), stacked compute, exposed communication, other busy, then idle split by class,
// each as a share of the span. Same colors as the timeline.
#include <string>

#include "analyzer/result/result.h"

namespace bubblescope::analysis {

std::string breakdownSvg(const PipelineResult& pipeline, double width = 1400);

}  // namespace bubblescope::analysis
