#pragma once
// `bubblescope hang RUN`: the post-mortem of a run that hung or mismatched: where each rank
// stopped, who waits for whom, one diagnosis. Exit 1 when it finds a hang or mismatch, 0 when
// the run ended cleanly, 2 on bad input.
#include <string>
#include <vector>

namespace bubblescope::cli {

struct HangOptions {
  std::vector<std::string> runs;
  std::string format = "text";  // text or json
  std::string output;           // file, "" = stdout
};

int runHang(const HangOptions& o);

}  // namespace bubblescope::cli
