#pragma once
// The bubblescope program's command line: parses argv, runs the subcommand it names and returns
// its exit code. Bad input the parser finds is one line on stderr and kBadInput.
namespace bubblescope::cli {

// Commands throw on bad input (UsageError, TraceError, ...): main() turns that into exit codes.
int runCommandLine(int argc, char** argv);

}  // namespace bubblescope::cli
