#pragma once
// PNG files of rendered frames (stb_image_write from Debian's libstb-dev).
#include <string>

#include "gui/app/window.h"

namespace bubblescope::gui {

// Written whole or not at all (traces/files/output_file.h). Throws TraceError naming the file
// when it cannot be written, std::invalid_argument when the pixels cannot be encoded.
void writePng(const std::string& file, const Pixels& pixels);

}  // namespace bubblescope::gui
