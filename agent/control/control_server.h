#pragma once
// The agent's control socket: `<pid>.sock` in the user's 0700 runtime directory, served by one
// background thread that polls with a timeout, answers one request per connection and accepts
// only the process's own uid (and root), checked with SO_PEERCRED. It never blocks the job: if
// the socket cannot be had, one warning line, attach is unavailable, the job goes on.
#include "agent/control/control_handler.h"
#include "agent/control/runtime_dir.h"

namespace bubblescope::agent {

// Starts the server once per process image; false (after one warning line) if it cannot.
// `liveSource` answers `hang` (agent/process/live_state.h).
bool startControlServer(const ControlIdentity& identity, const control::DirEnvironment& env,
                        control::LiveSnapshot (*liveSource)());
// At exit: the socket file is removed so no client finds a process that cannot answer.
void stopControlServer();
// fork(): the child closes the parent's sockets without removing the file (the parent keeps
// answering on it); the child has no server of its own.
void controlServerChildAfterFork();
// The socket's path ("" when there is none): tests and status.
std::string controlSocketPath();

}  // namespace bubblescope::agent
