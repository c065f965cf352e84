// The words the launcher uses for how a stage ended.
#include "reference_engine/executor/exit_status.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>

#include "reference_engine/executor/worker.h"

namespace bubblescope::engine {
namespace {

int statusOfChild(void (*body)()) {
  pid_t pid = fork();
  if (pid == 0) {
    body();
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

TEST(ExitStatus, AbortNamesTheSignalAndItsDescription) {
  const int status = statusOfChild([] {
    signal(SIGABRT, SIG_DFL);
    kill(getpid(), SIGABRT);
  });
  EXPECT_EQ(describeExit(status), "was killed by signal 6 (Aborted)");
}

TEST(ExitStatus, ExitCodeIsNamed) {
  EXPECT_EQ(describeExit(statusOfChild([] { _exit(1); })), "exited with status 1");
}

TEST(ExitStatus, LostPeerExitSaysItWasAConsequence) {
  const int status = statusOfChild([] { _exit(kStageLostPeerExit); });
  EXPECT_EQ(describeExit(status), "exited with status 4 (a neighbouring stage closed its channel)");
}

}  // namespace
}  // namespace bubblescope::engine
