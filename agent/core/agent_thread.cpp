#include "agent/core/agent_thread.h"

#include <csignal>
#include <initializer_list>

namespace bubblescope::agent {

int startAgentThread(void* (*body)(void*), void* arg, size_t stackBytes, pthread_t* thread) {
  // The new thread inherits the mask in force when it is created.
  sigset_t all, old;
  sigfillset(&all);
  for (int sync : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP}) sigdelset(&all, sync);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  if (stackBytes != 0) pthread_attr_setstacksize(&attr, stackBytes);
  const int rc = pthread_create(thread, &attr, body, arg);
  pthread_attr_destroy(&attr);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return rc;
}

}  // namespace bubblescope::agent
