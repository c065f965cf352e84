// `bubblescope demo` on every pipeline shape its options allow: the faults it injects sit on
// stages and microbatches the pipeline has (`demo -p 2` put its slow stage on a stage 2 it did not
// have, so the engine refused and nothing was recorded).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"

namespace bubblescope::testing {
namespace {

namespace fs = std::filesystem;

struct Shape {
  int p, m;
  const char* says;  // where the demo says it put its faults
};

TEST(DemoShapes, TheSmallestPipelinesGetTheirFaultsAndAReport) {
  for (const Shape& s : {Shape{2, 2,
                               "stage 1 made 1.3x slower and a 15 ms stall on stage 1 "
                               "before microbatch 1 of step 2"},
                         Shape{3, 1,
                               "stage 2 made 1.3x slower and a 15 ms stall on stage 1 "
                               "before microbatch 0 of step 2"}}) {
    SCOPED_TRACE("p=" + std::to_string(s.p) + " m=" + std::to_string(s.m));
    TempDir dir("bubblescope-demo");
    const fs::path out = dir.path() / "demo";
    const ProcessResult r =
        runBubblescope({"demo", "-p", std::to_string(s.p), "-m", std::to_string(s.m), "--steps",
                        "3", "-o", out.string()});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find(s.says), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("culprit:"), std::string::npos) << r.out;
    std::ifstream in(out / "report.json");
    ASSERT_TRUE(in) << "no report.json in " << out;
    const nlohmann::json report = nlohmann::json::parse(in);
    ASSERT_EQ(report["pipelines"].size(), 1u);
    EXPECT_EQ(report["pipelines"][0]["stages"].size(), static_cast<size_t>(s.p));
  }
}

}  // namespace
}  // namespace bubblescope::testing
