#pragma once
// The flags of every command that analyses a run (analyze, check, export perfetto, view):
// declared once in command_line.cpp, turned into the analyzer's options once here.
#include <string>
#include <vector>

#include "analyzer/analyze.h"

namespace bubblescope::cli {

struct AnalysisFlags {
  bool noClockAlign = false;       // --no-clock-align
  std::string steps;  // --steps N, A:B, A: or :B, all; "" = every step but the warm-up
  std::vector<std::string> rules;  // --rules FILE (repeatable)
};

// Whether a command without --steps leaves the capture's first step out: the reports (analyze,
// check) do, as warm-up; what draws the run (view, export) shows every step it holds.
enum class WarmupStep { LeftOut, Shown };

// Throws UsageError for a bad --steps.
analysis::AnalyzeOptions analyzeOptions(const AnalysisFlags& flags,
                                        WarmupStep warmup = WarmupStep::LeftOut);
// The same flags as arguments of another bubblescope process ("--rules=FILE", ...).
void appendAnalysisArgs(const AnalysisFlags& flags, std::vector<std::string>& argv);

}  // namespace bubblescope::cli
