// bubblescope: one program, git-style subcommands.
#include <cstdio>
#include <exception>
#include <iostream>
#include <stdexcept>

#include "cli/command_line.h"
#include "cli/exit_codes.h"
#include "traces/errors.h"

int main(int argc, char** argv) {
  using namespace bubblescope::cli;
  try {
    return runCommandLine(argc, argv);
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
