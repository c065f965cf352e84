#include "cli/own_priority.h"

#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace bubblescope::cli {

void lowerThisThreadsPriority(int64_t by) {
  if (by <= 0) return;
  // Linux keeps a nice value per thread: PRIO_PROCESS with a thread id sets that thread's alone.
  const id_t self = static_cast<id_t>(gettid());
  errno = 0;
  const int now = getpriority(PRIO_PROCESS, self);
  if (errno != 0) return;
  setpriority(PRIO_PROCESS, self, static_cast<int>(std::min<int64_t>(now + by, 19)));
}

bool enterIdleClass() {
  const sched_param none{};
  return sched_setscheduler(gettid(), SCHED_IDLE, &none) == 0;
}

}  // namespace bubblescope::cli
