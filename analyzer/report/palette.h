#pragma once
// The report colours, one per idle class, op kind and busy part, shared by the HTML/SVG writers
// (and anything else that draws a run) so a class looks the same everywhere. In the text
// report's spirit: bubbles the schedule leaves are blue, what balance or steadier ops would win
// back is amber, stalls are red; ops are green, teal and violet so they never read as idle.
#include <cstdint>
#include <string>

#include "analyzer/result.h"

namespace bubblescope::analysis {

struct Rgb {
  uint8_t r = 0, g = 0, b = 0;
  bool operator==(const Rgb&) const = default;
};

Rgb idleClassRgb(IdleClass c);
Rgb opKindRgb(OpKind k);
// The busy parts of a split, for breakdown charts (compute wears F's green).
Rgb computeRgb();
Rgb exposedCommRgb();
Rgb otherBusyRgb();

// "#3aa655".
std::string hexColour(Rgb c);

}  // namespace bubblescope::analysis
