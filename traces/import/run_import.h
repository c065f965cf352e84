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
#include "traces/import/input_formats.h"
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
// Inputs::dir for `files` listed from paths given, the first `first`, from the names alone: the
// first path when it is a directory or the only file, else the first file's directory.
std::filesystem::path inputsDir(const std::filesystem::path& first,
                                const std::vector<std::filesystem::path>& files);

struct ImportedRun {
  Run run;
  std::vector<ImportedFile> files;  // per input: format, what was skipped, notes (ranks moved out)
  std::vector<std::string> notes;   // about the run as a whole (how ranks were numbered)
};

// Imports Kineto or nsys inputs. Throws TraceError naming the file for bad input, and for traces
// that are not of one job (see numberRanks).
ImportedRun importRun(const Inputs& inputs, const LoadOptions& options = {});

// The same file by file, for runs too large to hold: each file's ranks go to `sink` as soon as
// the file is read (from the loading threads, several at once; `index` orders them: by file,
// then by process within a file). Ranks are left as the files say: number them with numberRanks.
// Without a sink (an empty function) each file's ranks stay in its ImportedFile.
using RankSink = std::function<void(size_t index, RankTrace&& trace)>;
std::vector<ImportedFile> importEach(const Inputs& inputs, const LoadOptions& options,
                                     const RankSink& sink);

// The rank a trace claims, in input order.
struct RankClaim {
  std::filesystem::path file;
  int rank = -1;
  int worldSize = -1;
};
// Checks that the traces are of one job (TraceError naming both files: two claim one rank, their
// world sizes differ, or some say their rank and some do not), numbers the ranks in input order
// when no trace says (as the format's RankPolicy has it), and says how in `notes`.
void numberRanks(std::vector<RankClaim>& claims, InputFormat format,
                 std::vector<std::string>& notes);

// Any input: our traces are read, others imported in memory.
Run loadAnyRun(const std::vector<std::filesystem::path>& paths, const LoadOptions& options = {});

// A run loaded in parts (`analyze` under MPI, each process some of the files), then made whole:
// the ranks of input file `file`, as loadAnyRun reads or imports them, in the file's order.
// `threads`: how many it may use (0: one per core). Throws TraceError naming the file.
std::vector<RankTrace> loadInputFile(const Inputs& inputs, size_t file, unsigned threads);
// The run's directory, as loadAnyRun gives it for `paths` (resolved into `inputs`), from the
// names alone (the paths need not be there).
std::filesystem::path runDirOf(const Inputs& inputs,
                               const std::vector<std::filesystem::path>& paths);
// Every file's ranks, in input order (by file, then as loadInputFile gives them), numbered,
// checked and ordered as loadAnyRun does; returns, for each rank of the run, its input position.
// Throws TraceError as loadAnyRun does.
std::vector<size_t> finishRun(Run& run, InputFormat format);

}  // namespace bubblescope::traces::import
