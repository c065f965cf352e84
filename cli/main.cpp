// bubblescope: one program, git-style subcommands.
#include <cstdio>
#include <exception>
#include <iostream>

#include "cli/command.h"
#include "cli/exit_codes.h"
#include "bubblescope/version.h"
#include "traces/errors.h"

namespace bubblescope::cli {
namespace {

int run(int argc, char** argv) {
  CLI::App app{"bubblescope: find and explain the bubbles of pipeline-parallel training",
               "bubblescope"};
  app.set_version_flag("--version", std::string("bubblescope ") + BUBBLESCOPE_VERSION);
  app.require_subcommand(1);
  app.fallthrough(false);

  Action action;
  addSimulateCommand(app, action);
  addEngineCommand(app, action);
  addDemoCommand(app, action);
  addRecordCommand(app, action);
  addAttachCommands(app, action);
  addPsCommand(app, action);
  addAnalyzeCommand(app, action);
  addCheckCommand(app, action);
  addImportCommand(app, action);
  addExportCommand(app, action);
  addViewCommand(app, action);

  // An unknown first word is the commonest slip; name it rather than "subcommand required".
  if (argc > 1 && argv[1][0] != '-') {
    bool known = false;
    std::string names;
    for (const auto* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
      known = known || sub->get_name() == argv[1];
      if (!sub->get_group().empty()) names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    if (!known) {
      std::cerr << "bubblescope: unknown command '" << argv[1] << "' (commands: " << names << ")\n";
      return kBadInput;
    }
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "bubblescope: " << e.what() << " (see 'bubblescope --help')\n";
    return kBadInput;
  }
  if (!action) return kOk;
  return action();
}

}  // namespace
}  // namespace bubblescope::cli

int main(int argc, char** argv) {
  using namespace bubblescope::cli;
  try {
    return run(argc, argv);
  } catch (const bubblescope::traces::TraceError& e) {
    std::cerr << "bubblescope: " << e.what() << "\n";
    return kBadInput;
  } catch (const std::invalid_argument& e) {
    // Bad input: schedules, configurations, usage (their messages are one sentence).
    std::cerr << "bubblescope: " << e.what() << "\n";
    return kBadInput;
  } catch (const std::exception& e) {
    std::cerr << "bubblescope: internal error: " << e.what() << "\n";
    return kInternalError;
  }
}
