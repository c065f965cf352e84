#pragma once
// Bad command-line input found after parsing: main() prints its one-sentence message and exits
// with code 2 (kBadInput), so a command just throws it.
#include <stdexcept>

namespace bubblescope::cli {

class UsageError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

}  // namespace bubblescope::cli
