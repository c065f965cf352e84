#include "agent/process/signals.h"

#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <cerrno>

#include "agent/core/writer.h"

namespace bubblescope::agent {
namespace {

constexpr int kSignals[] = {SIGTERM, SIGINT, SIGABRT};
struct sigaction g_previous[NSIG];
std::atomic<bool> g_installed{false};

void onSignal(int sig, siginfo_t* info, void* context) {
  const int savedErrno = errno;
  flushWriterFromSignal(kSignalFlushMs, sig);
  const struct sigaction& prev = g_previous[sig];
  if ((prev.sa_flags & SA_SIGINFO) != 0) {
    if (prev.sa_sigaction != nullptr) prev.sa_sigaction(sig, info, context);
  } else if (prev.sa_handler == SIG_DFL) {
    // The default action ends the process: restore it and deliver the signal again, now.
    struct sigaction dfl = {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, nullptr);
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, sig);
    pthread_sigmask(SIG_UNBLOCK, &only, nullptr);
    raise(sig);
  } else if (prev.sa_handler != SIG_IGN) {
    prev.sa_handler(sig);
  }
  errno = savedErrno;
}

}  // namespace

void installFlushOnSignals() {
  if (g_installed.exchange(true)) return;
  for (int sig : kSignals) {
    struct sigaction old = {};
    if (sigaction(sig, nullptr, &old) != 0) continue;
    if ((old.sa_flags & SA_SIGINFO) == 0 && old.sa_handler == SIG_IGN) continue;
    g_previous[sig] = old;
    struct sigaction ours = {};
    ours.sa_sigaction = &onSignal;
    sigemptyset(&ours.sa_mask);
    // Keep the program's choices about restarting system calls and the alternate stack.
    ours.sa_flags = SA_SIGINFO | (old.sa_flags & (SA_RESTART | SA_ONSTACK));
    sigaction(sig, &ours, nullptr);
  }
}

}  // namespace bubblescope::agent
