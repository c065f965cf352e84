// The Debian package as a user gets it: CPack packs this build tree (nothing is rebuilt), dpkg-deb
// unpacks it into a scratch root, and the program there records the reference engine with the
// agent beside it, analyses the run and renders a frame of it. Skipped with one line where
// dpkg-deb is missing; the frame needs xvfb-run.
#include <gtest/gtest.h>
#include <stb_image.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>

#include "bubblescope/version.h"
#include "gui/timeline/colors.h"
#include "tests/support/engine_noise.h"
#include "tests/support/engine_recording.h"
#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"
#include "traces/sqlite/run_reader.h"

namespace bubblescope::testing {
namespace {

namespace fs = std::filesystem;

bool haveDpkgDeb() {
  return access("/usr/bin/dpkg-deb", X_OK) == 0;
}

#define SKIP_WITHOUT_DPKG_DEB() \
  if (!haveDpkgDeb()) GTEST_SKIP() << "dpkg-deb not found: the Debian package is not built"

// The package, built and unpacked once for every test of this process (ctest runs them in one).
struct Installed {
  TempDir dir{"bubblescope-package"};
  fs::path deb;
  fs::path root = dir / "root";
  fs::path program = root / "usr" / "bin" / "bubblescope";
  std::string failure;  // empty once unpacked
};

const Installed& installed() {
  static Installed i;
  static const bool unpacked = [] {
    const ProcessResult pack = runProcess(
        {BUBBLESCOPE_CPACK, "--config", BUBBLESCOPE_CPACK_CONFIG, "-B", (i.dir / "out").string()});
    if (pack.exitCode != 0) {
      i.failure = "cpack failed: " + pack.out + pack.err;
      return false;
    }
    for (const auto& entry : fs::directory_iterator(i.dir / "out")) {
      if (entry.path().extension() == ".deb") i.deb = entry.path();
    }
    const ProcessResult x = runProcess({"/usr/bin/dpkg-deb", "-x", i.deb.string(), i.root});
    if (i.deb.empty() || x.exitCode != 0) {
      i.failure = "no package to unpack in " + (i.dir / "out").string() + ": " + x.err;
      return false;
    }
    return true;
  }();
  (void)unpacked;
  return i;
}

std::string controlField(const fs::path& deb, const std::string& field) {
  const ProcessResult r = runProcess({"/usr/bin/dpkg-deb", "-f", deb.string(), field});
  EXPECT_EQ(r.exitCode, 0) << r.err;
  return r.out.substr(0, r.out.find('\n'));
}

// The installed program records the suite's standard engine run (1F1B, 3 stages, 6 microbatches,
// a 20 ms stall on stage 1 before F3 of step 2), the agent found beside it: nothing points it to
// the build tree's. Made again, up to three times, where the machine stretched it (engine_noise.h).
struct RecordedRun {
  TempDir dir{"bubblescope-package-run"};
  fs::path run = dir / "run";
  SteadyRecording record;  // when not steady, the files are the last recording's
};

const RecordedRun& recordedRun() {
  static RecordedRun r;
  static const bool recorded = [] {
    ProcessOptions o;
    o.unsetEnv = {"BUBBLESCOPE_AGENT", "LD_PRELOAD", "BUBBLESCOPE_RUN_ID"};
    r.record = recordSteadyEngineRunWith(
        installed().program, r.run, r.run / "truth.json",
        {"--schedule", "1f1b", "-p", "3", "-m", "6", "--stall", "1:3:20:2"}, o);
    return r.record.process.exitCode == 0;
  }();
  (void)recorded;
  return r;
}

TEST(Package, IsNamedForItsVersionAndDeclaresTheLibrariesTheProgramLinks) {
  SKIP_WITHOUT_DPKG_DEB();
  const Installed& p = installed();
  ASSERT_EQ(p.failure, "");
  EXPECT_EQ(
      p.deb.filename().string().rfind(std::string("bubblescope_") + BUBBLESCOPE_VERSION + "_", 0),
      0u)
      << p.deb;
  EXPECT_EQ(controlField(p.deb, "Package"), "bubblescope");
  EXPECT_EQ(controlField(p.deb, "Version"), BUBBLESCOPE_VERSION);
  const std::string depends = controlField(p.deb, "Depends");
  for (const char* package : {"libc6 ", "libstdc++6 ", "libsqlite3-0 ", "libsimdjson14 ", "zlib1g ",
                              "libzstd1 ", "libglfw3 ", "libopengl0", "libstb0 ", "libre2-9 "}) {
    EXPECT_NE(depends.find(package), std::string::npos) << package << " in " << depends;
  }
  EXPECT_EQ(controlField(p.deb, "Recommends"), "xvfb, xauth");
}

TEST(Package, PutsTheProgramTheAgentAndTheDocsUnderUsr) {
  SKIP_WITHOUT_DPKG_DEB();
  const Installed& p = installed();
  ASSERT_EQ(p.failure, "");
  EXPECT_EQ(access(p.program.c_str(), X_OK), 0) << p.program;
  // Where the program looks for it: ../lib/bubblescope/ beside itself.
  EXPECT_TRUE(fs::is_regular_file(p.root / "usr/lib/bubblescope/libbubblescope-agent.so"));
  const fs::path doc = p.root / "usr/share/doc/bubblescope";
  for (const char* file : {"README.md", "docs/analysis.md", "docs/agent.md", "docs/viewer.md",
                           "docs/images/viewer.png"}) {
    EXPECT_TRUE(fs::is_regular_file(doc / file)) << file;
  }
  std::vector<std::string> top;
  for (const auto& entry : fs::directory_iterator(p.root)) top.push_back(entry.path().filename());
  EXPECT_EQ(top, std::vector<std::string>{"usr"});
}

TEST(Package, InstalledProgramRecordsTheEngineWithTheInstalledAgent) {
  SKIP_WITHOUT_DPKG_DEB();
  ASSERT_EQ(installed().failure, "");
  const RecordedRun& r = recordedRun();
  ASSERT_EQ(r.record.process.exitCode, 0) << r.record.process.err;
  const traces::Run run = traces::readRun(r.run);
  ASSERT_EQ(run.ranks.size(), 3u);
  for (const auto& rank : run.ranks) {
    EXPECT_EQ(rank.meta.agentVersion, BUBBLESCOPE_VERSION);
    // Each stage process is the installed program, and its agent recorded its NVTX ops.
    EXPECT_EQ(rank.meta.command.rfind(installed().program.string() + " engine worker", 0), 0u)
        << rank.meta.command;
    EXPECT_GE(rank.ranges->size(), 4u * 6 * 2) << rank.file;  // F and B of 6 microbatches, 4 steps
  }
}

TEST(Package, InstalledProgramAnalyzesTheRunAndBlamesTheStall) {
  SKIP_WITHOUT_DPKG_DEB();
  ASSERT_EQ(installed().failure, "");
  const RecordedRun& r = recordedRun();
  ASSERT_EQ(r.record.process.exitCode, 0) << r.record.process.err;
  const ProcessResult a =
      runProcess({installed().program, "analyze", r.run, "--steps", "1:", "--format", "json"});
  ASSERT_EQ(a.exitCode, 0) << a.err;
  const auto report = nlohmann::json::parse(a.out);
  const auto& pl = report["pipelines"][0];
  EXPECT_EQ(pl["schedule"]["name"], "1F1B");
  EXPECT_EQ(pl["schedule"]["p"], 3);
  EXPECT_EQ(pl["schedule"]["m"], 6);
  EXPECT_EQ(pl["steps"].size(), 3u);
  // The stall holds up every stage for 20 ms, five ops' worth: its gaps are among the top ones
  // whatever the machine did (a summary holds its top gaps whole).
  const auto isTheStall = [](const nlohmann::json& gap) {
    const auto& blame = gap["blame"];
    return gap["step_number"] == 2 && gap["dominant"] == "stall_other" &&
           blame["cause"] == "stall_other" && blame["stage"] == 1 && blame["op"]["kind"] == "F" &&
           blame["op"]["mb"] == 3;
  };
  const auto& top = pl["top_gaps"];
  EXPECT_TRUE(std::any_of(top.begin(), top.end(), isTheStall)) << top.dump(1);
  // That it is the largest needs a machine that stretched the run by less than it.
  if (const auto why = r.record.tooLoaded(); !why.empty()) GTEST_SKIP() << why;
  EXPECT_TRUE(isTheStall(top[0])) << top.dump(1);
}

TEST(Package, InstalledViewerRendersTheRunToAPng) {
  SKIP_WITHOUT_DPKG_DEB();
  if (access("/usr/bin/xvfb-run", X_OK) != 0) GTEST_SKIP() << "xvfb-run not found";
  ASSERT_EQ(installed().failure, "");
  const RecordedRun& r = recordedRun();
  ASSERT_EQ(r.record.process.exitCode, 0) << r.record.process.err;
  const fs::path png = r.dir / "frame.png";
  ProcessOptions o;
  o.timeout = std::chrono::seconds(90);
  const ProcessResult v = runProcess({"/usr/bin/xvfb-run", "-a", "-s", "-screen 0 1920x1080x24",
                                      installed().program, "view", r.run, "--screenshot", png},
                                     o);
  ASSERT_EQ(v.exitCode, 0) << v.err;
  int w = 0, h = 0, channels = 0;
  const std::unique_ptr<unsigned char, void (*)(void*)> pixels(
      stbi_load(png.c_str(), &w, &h, &channels, 4), stbi_image_free);
  ASSERT_NE(pixels, nullptr) << png;
  EXPECT_EQ(w, 1600);  // view's default --size
  EXPECT_EQ(h, 900);
  // It opens at the step with the stall: F boxes and the stall's class color are drawn.
  const auto count = [&](gui::Rgba color) {
    const analysis::Rgb want = gui::rgbOf(color);
    int n = 0;
    for (int i = 0; i < w * h; ++i) {
      const unsigned char* px = pixels.get() + static_cast<size_t>(i) * 4;
      n += std::abs(px[0] - want.r) <= 3 && std::abs(px[1] - want.g) <= 3 &&
           std::abs(px[2] - want.b) <= 3;
    }
    return n;
  };
  EXPECT_GT(count(gui::opColor(analysis::OpKind::F)), 1000);
  EXPECT_GT(count(gui::idleColor(analysis::IdleClass::OtherStall)), 100);
}

}  // namespace
}  // namespace bubblescope::testing
