#pragma once
// The public real traces the importers are tested on (shared/data/, beside the repository). A
// clone on its own lacks that folder (CI has it): the tests that read it say so and are skipped.
#include <gtest/gtest.h>

#include <filesystem>
#include <stdexcept>
#include <string>

namespace bubblescope::testing {

inline std::filesystem::path sharedDataDir() {
  return (std::filesystem::path(BUBBLESCOPE_SOURCE_DIR) / ".." / "shared" / "data")
      .lexically_normal();
}

inline bool haveSharedData() {
  return std::filesystem::is_directory(sharedDataDir());
}

// A file of the folder; with the folder there, a missing file is a failure, not a skip.
inline std::filesystem::path sharedData(const std::string& relative) {
  const auto path = sharedDataDir() / relative;
  if (!std::filesystem::exists(path)) {
    throw std::runtime_error("the public test trace " + path.string() +
                             " is missing from shared/data (see shared/data/README.md)");
  }
  return path;
}

}  // namespace bubblescope::testing

// The first statement of a test that reads shared/data: one line and a skip where it is absent.
// (switch: so that an `else` after the macro cannot bind to its `if`, as in gtest's own macros.)
#define SKIP_WITHOUT_SHARED_DATA()                                     \
  switch (0)                                                           \
  case 0:                                                              \
  default:                                                             \
    if (::bubblescope::testing::haveSharedData()) {                    \
    } else                                                             \
      GTEST_SKIP() << "../shared/data not found ("                     \
                   << ::bubblescope::testing::sharedDataDir().string() \
                   << "): the public real traces are not beside this clone"
