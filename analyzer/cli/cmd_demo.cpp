// Placeholder: replaced when the demo command lands.
#include "analyzer/cli/command.h"
#include "analyzer/cli/exit_codes.h"

namespace bubblescope::cli {

void addDemoCommand(CLI::App& app, Action& action) {
  auto* sub = app.add_subcommand("demo", "demo (not built yet)");
  sub->callback([&action] { action = [] { return kInternalError; }; });
}

}  // namespace bubblescope::cli
