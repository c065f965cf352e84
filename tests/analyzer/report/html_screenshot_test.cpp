// The HTML report of a 64-stage run, rendered by headless Chromium: the page must load, lay out
// at the window's size, and show the timeline in the report's colors (ops F, B, W and idle by
// class) within the first screen. Also records how long the page takes to write and its size.
#include <gtest/gtest.h>
#include <png.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "analyzer/report/html_report.h"
#include "analyzer/report/palette.h"
#include "tests/analyzer/report/report_fixtures.h"
#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"

namespace bubblescope::analysis {
namespace {

namespace fs = std::filesystem;

constexpr int kWidth = 1600, kHeight = 1200;

// $BUBBLESCOPE_CHROMIUM at run time, else the Chromium CMake found (the test is only built
// when it found one).
std::string chromiumBinary() {
  if (const char* env = std::getenv("BUBBLESCOPE_CHROMIUM"); env && *env) return env;
  return BUBBLESCOPE_CHROMIUM;
}

struct Image {
  int width = 0, height = 0;
  std::vector<uint8_t> rgb;
};

// Decoded with libpng's simplified API, as 8-bit RGB.
Image readPng(const fs::path& file) {
  png_image image;
  std::memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  Image out;
  if (!png_image_begin_read_from_file(&image, file.c_str())) return out;
  image.format = PNG_FORMAT_RGB;
  out.rgb.resize(PNG_IMAGE_SIZE(image));
  if (!png_image_finish_read(&image, nullptr, out.rgb.data(), 0, nullptr)) {
    png_image_free(&image);
    return {};
  }
  out.width = static_cast<int>(image.width);
  out.height = static_cast<int>(image.height);
  return out;
}

// Pixels within a small tolerance of `c` (anti-aliased edges blend; box interiors do not).
long countColor(const Image& img, Rgb c) {
  long n = 0;
  for (size_t i = 0; i + 2 < img.rgb.size(); i += 3) {
    if (std::abs(img.rgb[i] - c.r) <= 3 && std::abs(img.rgb[i + 1] - c.g) <= 3 &&
        std::abs(img.rgb[i + 2] - c.b) <= 3) {
      ++n;
    }
  }
  return n;
}

TEST(HtmlScreenshot, SixtyFourStageReportRendersInChromium) {
  const std::string chromium = chromiumBinary();
  ASSERT_EQ(access(chromium.c_str(), X_OK), 0)
      << chromium
      << " cannot be run: the HTML screenshot test needs Chromium (Debian package "
         "'chromium', installed by scripts/install-deps.sh --tests; or set BUBBLESCOPE_CHROMIUM "
         "to a Chromium binary)";

  // ZB-H1 so that F, B and W all show; stage 20 runs 1.5x slow.
  testing::SyntheticJob job = testing::oneF1BJob(64, 64, 20);
  job.schedule = engine::Schedule::zbH1(64, 64);
  job.steps = 2;
  job.cost = [](int stage, int, const engine::Op& op) {
    const TimeNs base = op.kind == engine::OpKind::BW ? 4'000'000 : 2'000'000;
    return stage == 20 ? base * 3 / 2 : base;
  };
  const AnalysisResult r = testing::analyzeJob(job);

  testing::TempDir dir("bubblescope-screenshot");
  const fs::path html = dir / "report.html";
  const auto begin = std::chrono::steady_clock::now();
  std::ostringstream page;
  writeHtmlReport(r, page);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin).count();
  const std::string text = page.str();
  testing::writeFile(html, text);
  std::cout << "64-stage HTML report (ZB-H1, m=64, " << r.pipelines[0].ops.size()
            << " ops): written in " << ms << " ms, " << text.size() << " bytes\n";
  RecordProperty("html_generation_ms", std::to_string(ms));
  RecordProperty("html_bytes", std::to_string(text.size()));
  EXPECT_LT(text.size(), 8u << 20) << "the page should stay a file people can attach";

  const fs::path png = dir / "report.png";
  testing::ProcessOptions options;
  options.timeout = std::chrono::seconds(90);
  const auto shot = testing::runProcess(
      {chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
       "--disable-background-networking", "--disable-component-update", "--disable-sync",
       "--hide-scrollbars", "--user-data-dir=" + (dir / "profile").string(),
       "--window-size=" + std::to_string(kWidth) + "," + std::to_string(kHeight),
       "--screenshot=" + png.string(), "file://" + html.string()},
      options);
  ASSERT_FALSE(shot.timedOut) << "chromium did not finish in 90 s:\n" << shot.err;
  ASSERT_EQ(shot.exitCode, 0) << shot.err;
  ASSERT_TRUE(fs::exists(png)) << "chromium wrote no screenshot:\n" << shot.err;

  // To look at it: BUBBLESCOPE_SCREENSHOT_DIR=/tmp/shots keeps the page and the picture.
  if (const char* keep = std::getenv("BUBBLESCOPE_SCREENSHOT_DIR"); keep && *keep) {
    fs::create_directories(keep);
    fs::copy_file(html, fs::path(keep) / "report-64-stages.html",
                  fs::copy_options::overwrite_existing);
    fs::copy_file(png, fs::path(keep) / "report-64-stages.png",
                  fs::copy_options::overwrite_existing);
  }
  const Image img = readPng(png);
  ASSERT_EQ(img.width, kWidth);
  ASSERT_EQ(img.height, kHeight);
  // Thousands of pixels each: the timeline's boxes, not just the legend's 12x12 swatches.
  const long f = countColor(img, opKindRgb(OpKind::F));
  const long b = countColor(img, opKindRgb(OpKind::B));
  const long w = countColor(img, opKindRgb(OpKind::W));
  long idle = 0;
  for (int c = 0; c < kIdleClasses; ++c) idle += countColor(img, idleClassRgb(idleClassAt(c)));
  std::cout << "screenshot pixels: F " << f << ", B " << b << ", W " << w << ", idle " << idle
            << "\n";
  EXPECT_GT(f, 5000);
  EXPECT_GT(b, 5000);
  EXPECT_GT(w, 5000);
  EXPECT_GT(idle, 2000);
}

}  // namespace
}  // namespace bubblescope::analysis
