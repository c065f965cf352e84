#pragma once
// The agent's own threads (the writer, the control socket's server): detached, and deaf to the
// job's asynchronous signals.
#include <pthread.h>

#include <cstddef>

namespace bubblescope::agent {

// Starts `body(arg)` on a detached thread with every asynchronous signal blocked: signals go to
// the application's threads, and the agent's own writes never raise SIGXFSZ or SIGPIPE in the
// job (the write just fails). Synchronous faults (SIGSEGV, SIGBUS, ...) stay deliverable.
// `stackBytes` 0 keeps the default stack. Returns pthread_create's result.
int startAgentThread(void* (*body)(void*), void* arg, size_t stackBytes, pthread_t* thread);

}  // namespace bubblescope::agent
