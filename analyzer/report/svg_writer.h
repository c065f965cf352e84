#pragma once
// Small helpers for writing SVG by hand: compact numbers and a text color that reads on a fill.
#include <string>

#include "analyzer/report/palette.h"

namespace bubblescope::analysis::svg {

// A coordinate with at most one decimal, no trailing ".0": "12", "12.5".
std::string num(double v);
// Black or white, whichever reads better on `fill`.
const char* textOn(Rgb fill);
// The font stack every drawing uses.
inline constexpr const char* kFontFamily =
    "system-ui, -apple-system, 'Segoe UI', Roboto, 'DejaVu Sans', Arial, sans-serif";

}  // namespace bubblescope::analysis::svg
