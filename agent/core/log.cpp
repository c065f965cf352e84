#include "agent/core/log.h"

#include <unistd.h>

#include <atomic>
#include <cstdarg>
#include <cstdio>

namespace bubblescope::agent {
namespace {

std::atomic<bool> g_warned[static_cast<int>(Problem::kCount)];

}  // namespace

void warnOnce(Problem problem, const char* format, ...) {
  if (g_warned[static_cast<int>(problem)].exchange(true)) return;
  char line[1024];
  int n = std::snprintf(line, sizeof line, "bubblescope: ");
  va_list args;
  va_start(args, format);
  const int body = std::vsnprintf(line + n, sizeof line - static_cast<size_t>(n) - 1, format, args);
  va_end(args);
  if (body > 0) n += body;
  if (n > static_cast<int>(sizeof line) - 2) n = static_cast<int>(sizeof line) - 2;
  line[n++] = '\n';
  // One write(2): the line arrives whole even when many ranks share the terminal.
  ssize_t ignored = ::write(STDERR_FILENO, line, static_cast<size_t>(n));
  (void)ignored;
}

}  // namespace bubblescope::agent
