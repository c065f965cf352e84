#pragma once
// The agent's life in a process: load (read the settings, choose the clock, arm the recorder,
// make itself the NVTX tool), fork (the child records to a file of its own or not at all) and
// exit (the last batch is committed and the file closed).
namespace bubblescope::agent {

// Idempotent: the library constructor calls it, and so does NVTX's initialisation in case NVTX
// loads the agent (NVTX_INJECTION64_PATH) before the constructor ran.
void initAgentOnce();
// BUBBLESCOPE_DISABLE=1: NVTX keeps no handlers of ours.
bool agentDisabled();
// A producer installed its hooks (NVTX: a module's first call). The control socket starts then,
// once per process: only processes that can record are attachable, and no thread of ours runs
// before main (a launcher that unshares or daemonises stays single-threaded).
void onHooksInstalled();

// The longest exit waits for the final flush and close.
inline constexpr int kExitFlushMs = 10000;

}  // namespace bubblescope::agent
