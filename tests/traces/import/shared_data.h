#pragma once
// The public real traces the importers are tested on (shared/data/, beside the repository).
#include <filesystem>
#include <stdexcept>
#include <string>

namespace bubblescope::testing {

inline std::filesystem::path sharedData(const std::string& relative) {
  const auto path =
      std::filesystem::path(BUBBLESCOPE_SOURCE_DIR) / ".." / "shared" / "data" / relative;
  if (!std::filesystem::exists(path)) {
    throw std::runtime_error("the public test trace " + path.lexically_normal().string() +
                             " is missing: these tests need the shared/data folder beside the "
                             "repository (see shared/data/README.md)");
  }
  return path;
}

}  // namespace bubblescope::testing
