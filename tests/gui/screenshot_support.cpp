#include "tests/gui/screenshot_support.h"

#include <stb_image.h>
#include <unistd.h>

#include <cstdlib>

#include "analyzer/report/palette.h"

namespace bubblescope::testing {

gui::Rgba Image::at(int x, int y) const {
  const unsigned char* p = data.get() + (static_cast<size_t>(y) * w + x) * 4;
  return gui::rgba(p[0], p[1], p[2]);
}

Image readPng(const std::filesystem::path& file) {
  Image img;
  int channels = 0;
  img.data =
      decltype(img.data)(stbi_load(file.c_str(), &img.w, &img.h, &channels, 4), stbi_image_free);
  return img;
}

bool near(gui::Rgba a, gui::Rgba b, int tolerance) {
  const auto x = gui::rgbOf(a), y = gui::rgbOf(b);
  return std::abs(x.r - y.r) <= tolerance && std::abs(x.g - y.g) <= tolerance &&
         std::abs(x.b - y.b) <= tolerance;
}

std::string hex(gui::Rgba c) {
  return analysis::hexColor(gui::rgbOf(c));
}

bool haveXvfb() {
  return access("/usr/bin/xvfb-run", X_OK) == 0;
}

ProcessResult screenshot(const std::vector<std::string>& args, ProcessOptions options) {
  // xvfb-run -a tries displays from its --server-num on, ten at most; test processes started at
  // once (ctest -j) all begin at 99 and race for the same few: each starts its search at its own
  // number, and a server that did not start is tried again.
  ProcessResult r;
  for (int attempt = 0; attempt < 3; ++attempt) {
    const int first = 100 + static_cast<int>(getpid() % 2000) * 4 + attempt * 9000;
    std::vector<std::string> argv = {"/usr/bin/xvfb-run",   "-a",  "-n",
                                     std::to_string(first), "-s",  "-screen 0 1920x1080x24",
                                     BUBBLESCOPE_BIN,       "view"};
    argv.insert(argv.end(), args.begin(), args.end());
    ProcessOptions o = options;
    o.timeout = std::chrono::seconds(90);
    r = runProcess(argv, o);
    if (r.exitCode == 0 || r.err.find("Xvfb failed to start") == std::string::npos) return r;
  }
  return r;
}

}  // namespace bubblescope::testing
