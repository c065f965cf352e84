#pragma once
// A fresh directory under $TMPDIR for one test, removed with everything in it at scope exit.
#include <filesystem>
#include <string>

namespace bubblescope::testing {

class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "bubblescope-test");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

// Reads a whole file; empty if it does not exist.
std::string readFile(const std::filesystem::path& file);
void writeFile(const std::filesystem::path& file, const std::string& contents);

}  // namespace bubblescope::testing
