// Placeholder: replaced when the simulate command lands.
#include "analyzer/cli/command.h"
#include "analyzer/cli/exit_codes.h"

namespace bubblescope::cli {

void addSimulateCommand(CLI::App& app, Action& action) {
  auto* sub = app.add_subcommand("simulate", "simulate (not built yet)");
  sub->callback([&action] { action = [] { return kInternalError; }; });
}

}  // namespace bubblescope::cli
