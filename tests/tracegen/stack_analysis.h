#pragma once
// A generated job written by one stack's writer into a directory, imported and analysed the way
// `bubblescope analyze DIR` does, with the truth beside it.
#include <filesystem>
#include <string>
#include <vector>

#include "analyzer/result/result.h"
#include "tests/tracegen/truth.h"

namespace bubblescope::tracegen {

// Agent: the capture agent on a replay of every rank (agent_stack.h); needs the agent built.
enum class Stack { Kineto, Nsys, Agent };

struct StackRun {
  Truth truth;
  analysis::AnalysisResult result;
  std::vector<std::string> importNotes;  // what the import said about the files
};

// Labelled: the ops carry the stack's labels (`PP:` ranges); Unlabelled: none; Bare: no step or
// optimizer range either (unlabelled.h).
enum class Labels { Labelled, Unlabelled, Bare };

// Runs the job, writes it as `stack` writes it (nsys: its default layout, nsys_stack.h) into
// `dir` and analyses it.
StackRun analyseAs(Stack stack, const JobSpec& spec, const std::filesystem::path& dir,
                   Labels labels = Labels::Labelled);

// Imports and analyses the traces written into `dir` of `job` (labelled or not: its truth).
StackRun analyseWritten(const JobTimeline& job, const std::filesystem::path& dir);

}  // namespace bubblescope::tracegen
