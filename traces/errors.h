#pragma once
// The one error a trace reader or writer reports: a file and what is wrong with it, as one
// sentence a user can act on ("run/rank-00003.sqlite: not a SQLite database").
#include <filesystem>
#include <stdexcept>
#include <string>

namespace bubblescope::traces {

class TraceError : public std::runtime_error {
 public:
  TraceError(const std::filesystem::path& file, const std::string& problem)
      : std::runtime_error(file.string() + ": " + problem), file_(file) {}
  const std::filesystem::path& file() const { return file_; }

 private:
  std::filesystem::path file_;
};

// A new trace's name was taken (its exclusive create failed with EEXIST): a writer that has another
// name to use tries it, instead of checking first and racing whoever takes the name meanwhile.
class TraceFileExists : public TraceError {
 public:
  using TraceError::TraceError;
};

}  // namespace bubblescope::traces
