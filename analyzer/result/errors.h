#pragma once
// Input the analysis cannot use (missing ranks, two runs mixed, no pipeline ops): one sentence
// naming the file or directory and the problem; the command exits with code 2.
#include <stdexcept>

namespace bubblescope::analysis {

class AnalysisInputError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

}  // namespace bubblescope::analysis
