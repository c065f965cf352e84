#pragma once
// The report colors, one per idle class (from kIdleClassTable), op kind and busy part, shared by the HTML/SVG writers
// (and anything else that draws a run) so a class looks the same everywhere. In the text
// report's spirit: bubbles the schedule leaves are blue, what balance or steadier ops would win
// back is amber, stalls are red; ops are green, teal and violet so they never read as idle.
#include <cstdint>
#include <string>

#include "analyzer/result/result.h"

namespace bubblescope::analysis {

Rgb idleClassRgb(IdleClass c);
Rgb opKindRgb(OpKind k);
// The busy parts of a split, for breakdown charts (compute wears F's green).
Rgb computeRgb();
Rgb exposedCommRgb();
Rgb otherBusyRgb();

// "#3aa655".
std::string hexColor(Rgb c);

}  // namespace bubblescope::analysis
