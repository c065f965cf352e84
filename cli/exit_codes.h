#pragma once
// Exit codes of the bubblescope program (docs/architecture.md).
namespace bubblescope::cli {

enum ExitCode : int {
  kOk = 0,
  kCheckFailed = 1,  // a regression check failed
  kBadInput = 2,     // bad input or usage, with a one-line reason
  kInternalError = 3,
};

}  // namespace bubblescope::cli
