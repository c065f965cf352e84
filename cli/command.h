#pragma once
// Subcommand registration. Each add*Command() declares a subcommand and its options on the app;
// when the user picks it, its parse callback stores what to run in `action`. main() runs the
// action after parsing and turns exceptions into exit codes, so commands just throw on bad input.
#include <functional>
#include <stdexcept>

#include <CLI/CLI.hpp>

namespace bubblescope::cli {

using Action = std::function<int()>;

// Bad command-line input found after parsing (exit code 2). The message is one sentence.
class UsageError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

void addSimulateCommand(CLI::App& app, Action& action);
void addEngineCommand(CLI::App& app, Action& action);
void addDemoCommand(CLI::App& app, Action& action);
void addRecordCommand(CLI::App& app, Action& action);
void addAttachCommands(CLI::App& app, Action& action);  // attach, detach
void addPsCommand(CLI::App& app, Action& action);
void addAnalyzeCommand(CLI::App& app, Action& action);
void addCheckCommand(CLI::App& app, Action& action);
void addImportCommand(CLI::App& app, Action& action);
void addExportCommand(CLI::App& app, Action& action);
void addViewCommand(CLI::App& app, Action& action);

}  // namespace bubblescope::cli
