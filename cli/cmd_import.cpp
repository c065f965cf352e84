// `bubblescope import kineto|nsys`: other recorders' traces in, a run directory of our per-rank
// files out, and a table of what was imported.
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "cli/exit_codes.h"
#include "traces/errors.h"
#include "traces/import/run_writer.h"

namespace bubblescope::cli {
namespace {

namespace fs = std::filesystem;
using traces::import::InputFormat;

struct ImportArgs {
  std::vector<std::string> inputs;
  std::string output;
  unsigned threads = 0;
};

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

int runImport(InputFormat wanted, const ImportArgs& a) {
  const std::vector<fs::path> paths(a.inputs.begin(), a.inputs.end());
  traces::import::Inputs inputs = traces::import::resolveInputs(paths);
  if (inputs.format != wanted) {
    const char* command = inputs.format == InputFormat::Nsys ? "bubblescope import nsys"
                          : inputs.format == InputFormat::ChromeTrace
                              ? "bubblescope import kineto"
                              : "bubblescope analyze (no import needed)";
    throw traces::TraceError(inputs.files.front(),
                             std::string(traces::import::formatPhrase(inputs.format)) + ", not " +
                                 traces::import::formatPhrase(wanted) + " (use '" + command + "')");
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

}  // namespace

void addImportCommand(CLI::App& app, Action& action) {
  auto* sub = app.add_subcommand(
      "import",
      "Convert other recorders' traces (PyTorch profiler / Kineto JSON, Nsight Systems "
      "SQLite) into a run directory");
  sub->require_subcommand(1);
  struct Variant {
    const char* name;
    const char* help;
    const char* inputsHelp;
    InputFormat format;
  };
  for (const Variant& v :
       {Variant{"kineto",
                "PyTorch profiler (Kineto) JSON, plain or .gz, one file per rank, or a Chrome-"
                "trace timeline",
                "Trace files, or a directory of them", InputFormat::ChromeTrace},
        Variant{"nsys", "Nsight Systems SQLite exports ('nsys export --type sqlite')",
                "Export files: one per rank, or one with every process", InputFormat::Nsys}}) {
    auto args = std::make_shared<ImportArgs>();
    auto* cmd = sub->add_subcommand(v.name, v.help);
    cmd->add_option("inputs", args->inputs, v.inputsHelp)->required();
    cmd->add_option("-o,--output", args->output, "The run directory to write (new or empty)")
        ->required();
    cmd->add_option("--threads", args->threads, "Files imported at once (default: one per core)");
    const InputFormat format = v.format;
    cmd->callback(
        [&action, args, format] { action = [args, format] { return runImport(format, *args); }; });
  }
}

}  // namespace bubblescope::cli
