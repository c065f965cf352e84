#pragma once
// SIGTERM, SIGINT and SIGABRT flush the trace first, then do what they would have done without
// the agent: call the program's own handler, or take the default action (re-raised, so the
// exit status is unchanged). A signal the program ignores stays ignored.
namespace bubblescope::agent {

// Installs the flushing handlers (once; from the thread that starts the writer).
void installFlushOnSignals();

// The longest a handler waits for the writer to commit.
inline constexpr int kSignalFlushMs = 2000;

}  // namespace bubblescope::agent
