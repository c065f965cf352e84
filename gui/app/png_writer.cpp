#include "gui/app/png_writer.h"

#include <stb_image_write.h>

#include <stdexcept>

namespace bubblescope::gui {

void writePng(const std::string& file, const Pixels& p) {
  if (!stbi_write_png(file.c_str(), p.width, p.height, 4, p.rgba.data(), p.width * 4)) {
    throw std::invalid_argument(file + ": cannot be written");
  }
}

}  // namespace bubblescope::gui
