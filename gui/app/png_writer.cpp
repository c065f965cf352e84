#include "gui/app/png_writer.h"

#include <stb_image_write.h>

#include <stdexcept>
#include <string>

#include "traces/files/output_file.h"

namespace bubblescope::gui {

// The PNG is encoded in memory, then written whole: stb's own file writer ignores write errors.
void writePng(const std::string& file, const Pixels& p) {
  std::string png;
  auto append = [](void* context, void* data, int size) {
    static_cast<std::string*>(context)->append(static_cast<const char*>(data),
                                               static_cast<size_t>(size));
  };
  if (!stbi_write_png_to_func(append, &png, p.width, p.height, 4, p.rgba.data(), p.width * 4)) {
    throw std::invalid_argument(file + ": cannot be encoded as PNG");
  }
  traces::writeOutputFile(file, png);
}

}  // namespace bubblescope::gui
