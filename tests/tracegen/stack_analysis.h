#pragma once
// A generated job written by one stack's writer into a directory, imported and analysed the way
// `bubblescope analyze DIR` does, with the truth beside it.
#include <filesystem>

#include "analyzer/result.h"
#include "tests/tracegen/truth.h"

namespace bubblescope::tracegen {

// Agent: the capture agent on a replay of every rank (agent_stack.h); needs the agent built.
enum class Stack { Kineto, Agent };

struct StackRun {
  Truth truth;
  analysis::AnalysisResult result;
};

StackRun analyseAs(Stack stack, const JobSpec& spec, const std::filesystem::path& dir);

}  // namespace bubblescope::tracegen
