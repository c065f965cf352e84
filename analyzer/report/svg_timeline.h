#pragma once
// One step of a pipeline as a self-contained SVG: stages as rows, F/B/W/BW boxes colored by
// kind, idle gaps shaded by their dominant class, the ideal schedule as a ghost lane, a legend
// and a time axis in ms. No scripts, no external resources: the HTML report inlines it, the
// viewer and the demo can write it on its own.
#include <string>

#include "analyzer/report/timeline_layout.h"
#include "analyzer/result/result.h"

namespace bubblescope::analysis {

struct SvgTimelineOptions {
  double width = 1400;  // px; the height follows from the number of stages
  int step = -1;        // index into PipelineResult::steps; -1: pickStepToDraw()
};

std::string stepTimelineSvg(const PipelineResult& pipeline, const SvgTimelineOptions& options = {});

// Paints a layout (for callers that lay out once and paint elsewhere too).
std::string timelineSvg(const TimelineLayout& layout, const std::string& title);

}  // namespace bubblescope::analysis
