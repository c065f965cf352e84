#pragma once
// Drawing pieces the side panel's sections share: a color swatch before a line, a duration in ms,
// and the stacked bar of a split (compute, exposed comm, other busy, then idle by class).
#include <imgui.h>

#include <string>

#include "analyzer/result/result.h"
#include "gui/timeline/colors.h"

namespace bubblescope::gui {

ImVec4 toVec(Rgba c);
// A small box of the color, then the line goes on beside it; `ghost` draws it thin, as the ideal
// schedule's row is.
void swatch(Rgba c, bool ghost = false);
std::string ms(TimeNs t);  // "12.34 ms"
// `width` pixels wide, one text line high, with the figures in its tooltip; `id` is ImGui's.
void splitBar(const analysis::Split& sp, float width, const char* id);

}  // namespace bubblescope::gui
