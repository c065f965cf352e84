#pragma once
// Whole frames of the real viewer for the screenshot tests: `bubblescope view ... --screenshot`
// under xvfb-run (Mesa's software GL), the PNG read back, and colors compared with a tolerance.
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "gui/timeline/colors.h"
#include "tests/support/subprocess.h"

namespace bubblescope::testing {

struct Image {
  int w = 0, h = 0;
  std::unique_ptr<unsigned char, void (*)(void*)> data{nullptr, nullptr};
  gui::Rgba at(int x, int y) const;
};

Image readPng(const std::filesystem::path& file);
bool near(gui::Rgba a, gui::Rgba b, int tolerance = 3);
std::string hex(gui::Rgba c);
bool haveXvfb();
// `bubblescope view ARGS` under xvfb-run on a 1920x1080 screen, in `options`' environment.
ProcessResult screenshot(const std::vector<std::string>& args, ProcessOptions options = {});

}  // namespace bubblescope::testing
