#pragma once
// Reading a run from whatever the user has: our run directory or trace files, Kineto JSON files
// (or a directory of them), Nsight Systems exports. Imports happen in memory, files in parallel;
// the ranks they claim are checked (two files may not claim one rank) and numbered when no file
// says.
#include <cstddef>
#include <filesystem>
#include <functional>
#include <vector>

#include "traces/import/imported.h"
#include "traces/import/input_format.h"
#include "traces/model/trace.h"

namespace bubblescope::traces::import {

struct LoadOptions {
  unsigned threads = 0;  // 0 = one per core
  // Called after each file (from the loading threads, one call at a time).
  std::function<void(size_t filesDone, size_t filesTotal)> progress;
};

// The inputs the paths name, all of one format. Throws TraceError (no such path, not a trace,
// an empty directory, formats mixed).
struct Inputs {
  InputFormat format = InputFormat::Unknown;
  std::vector<std::filesystem::path> files;
  std::filesystem::path dir;  // the run's directory (the one given, or the first file's)
};
Inputs resolveInputs(const std::vector<std::filesystem::path>& paths);

struct ImportedRun {
  Run run;
  std::vector<ImportedFile> files;  // per input: format, what was skipped, notes (ranks moved out)
  std::vector<std::string> notes;   // about the run as a whole (how ranks were numbered)
};

// Imports Kineto or nsys inputs. Throws TraceError naming the file for bad input, and for two
// traces that claim one rank.
ImportedRun importRun(const Inputs& inputs, const LoadOptions& options = {});

// Any input: our traces are read, others imported in memory.
Run loadAnyRun(const std::vector<std::filesystem::path>& paths, const LoadOptions& options = {});

}  // namespace bubblescope::traces::import
