// `bubblescope import kineto|nsys`: other recorders' traces in, a run directory of our per-rank
// files out, and a table of what was imported.
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>

#include "cli/cmd_import.h"
#include "cli/exit_codes.h"
#include "cli/malloc_policy.h"
#include "cli/run_loading.h"
#include "cli/usage_error.h"
#include "traces/errors.h"
#include "traces/import/run_writer.h"
#include "traces/sqlite/trace_reader.h"

namespace bubblescope::cli {
namespace {

namespace fs = std::filesystem;
using traces::import::InputFormat;

void prepareOutput(const fs::path& dir) {
  std::error_code ec;
  if (fs::exists(dir, ec)) {
    if (!fs::is_directory(dir, ec))
      throw UsageError(dir.string() + ": exists and is not a directory");
    if (!fs::is_empty(dir, ec)) {
      throw UsageError(dir.string() +
                       ": exists and is not empty; give a new directory for the run");
    }
  }
  fs::create_directories(dir, ec);
  if (ec) throw UsageError(dir.string() + ": cannot be created: " + ec.message());
}

}  // namespace

int runImport(InputFormat wanted, const ImportArgs& a) {
  configureMalloc();  // a run held as columns, built and freed phase by phase
  refuseOwnOutputs(a.inputs);
  const std::vector<fs::path> paths(a.inputs.begin(), a.inputs.end());
  traces::import::Inputs inputs = traces::import::resolveInputs(paths);
  if (inputs.format == InputFormat::Bubblescope) {
    // Said to be ours only by its name (*.sqlite)? Then the reader says what it really is.
    traces::readRankMeta(inputs.files.front());
    throw traces::TraceError(inputs.files.front(),
                             std::string("a bubblescope trace already, not ") +
                                 traces::import::formatPhrase(wanted) +
                                 ": no import needed, 'bubblescope analyze' reads it");
  }
  if (inputs.format != wanted) {
    std::string why = std::string(traces::import::formatPhrase(inputs.format)) + ", not " +
                      traces::import::formatPhrase(wanted);
    const traces::import::InputFormatRow* format = traces::import::findInputFormat(inputs.format);
    if (format && format->command) {
      why += std::string(" (use 'bubblescope import ") + format->command->key + "')";
    }
    throw traces::TraceError(inputs.files.front(), why);
  }
  const fs::path out(a.output);
  std::error_code ec;
  const bool created = !fs::exists(out, ec);
  prepareOutput(out);

  traces::import::LoadOptions options;
  options.threads = a.threads;
  const bool tty = isatty(2);
  const auto begin = std::chrono::steady_clock::now();
  bool shown = false;
  options.progress = [&](size_t done, size_t total) {
    if (!tty || std::chrono::steady_clock::now() - begin < std::chrono::milliseconds(500)) return;
    std::cerr << "\rbubblescope: importing " << done << "/" << total << std::flush;
    shown = true;
  };
  // Each rank is written as soon as its file is read: memory holds only the files in flight.
  traces::import::WrittenRun written;
  try {
    written = traces::import::importToDirectory(inputs, out, options);
  } catch (...) {
    if (created) fs::remove(out, ec);  // only if still empty: nothing of the user's is touched
    throw;
  }
  if (shown) std::cerr << "\r\033[K" << std::flush;

  std::cout << "imported " << inputs.files.size() << (inputs.files.size() == 1 ? " file" : " files")
            << " (" << traces::import::formatName(inputs.format) << ") into " << out.string()
            << "\n";
  traces::import::printImportSummary(written.ranks, written.files, written.notes, std::cout);
  return kOk;
}

}  // namespace bubblescope::cli
