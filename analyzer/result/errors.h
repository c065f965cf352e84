#pragma once
// Input the analysis cannot use (missing ranks, two runs mixed, no pipeline ops): one sentence
// naming the file or directory and the problem; the command exits with code 2.
#include <stdexcept>
#include <string>

namespace bubblescope::analysis {

class AnalysisInputError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// A refusal led by the run it came from (the file or directory the user named, `dir`), once: a
// pipeline's own refusals ("pipeline 0: no step could be re-run ...") name only the pipeline.
inline std::string inRun(const std::string& dir, const std::string& what) {
  if (dir.empty() || what.compare(0, dir.size(), dir) == 0) return what;
  return dir + ": " + what;
}

// The refusal without the run that leads it, for a reader that names the run once itself (the
// watch, above its lines).
inline std::string outsideRun(const std::string& dir, const std::string& what) {
  const std::string lead = dir + ": ";
  if (dir.empty() || what.compare(0, lead.size(), lead) != 0) return what;
  return what.substr(lead.size());
}

}  // namespace bubblescope::analysis
