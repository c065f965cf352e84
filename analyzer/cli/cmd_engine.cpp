// Placeholder: replaced when the engine command lands.
#include "analyzer/cli/command.h"
#include "analyzer/cli/exit_codes.h"

namespace bubblescope::cli {

void addEngineCommand(CLI::App& app, Action& action) {
  auto* sub = app.add_subcommand("engine", "engine (not built yet)");
  sub->callback([&action] { action = [] { return kInternalError; }; });
}

}  // namespace bubblescope::cli
