#pragma once
// PNG files of rendered frames (stb_image_write from Debian's libstb-dev).
#include <string>

#include "gui/app/window.h"

namespace bubblescope::gui {

// Throws std::invalid_argument ("FILE: cannot be written") on failure.
void writePng(const std::string& file, const Pixels& pixels);

}  // namespace bubblescope::gui
