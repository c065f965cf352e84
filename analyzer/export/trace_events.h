#pragma once
// Chrome-trace JSON events written one at a time, for the Perfetto export: the metadata that names
// processes and threads, complete slices ("X") and flow arrows. Nothing is kept: an event is on
// the stream as soon as it is written.
#include <ostream>
#include <string>
#include <string_view>

#include "traces/model/time.h"

namespace bubblescope::analysis {

// A JSON string literal (quoted, escaped) for `s`.
std::string jsonString(std::string_view s);

// ns as microseconds with exactly three decimals: 1234567 -> "1234.567".
std::string microsText(TimeNs ns);

// The members of "traceEvents", comma-separated, one a line; times from `origin`.
class TraceEventWriter {
 public:
  TraceEventWriter(std::ostream& out, TimeNs origin) : out_(out), origin_(origin) {}

  // Names a process (or a thread of one), sorted by its pid (tid) among its siblings.
  void process(int pid, std::string_view name);
  void thread(int pid, int tid, std::string_view name);
  // `color`: chrome://tracing's reserved color name, "" for none; `args`: the members of the args
  // object, without braces.
  void slice(int pid, int tid, std::string_view name, std::string_view category, TimeNs start,
             TimeNs end, std::string_view color, std::string_view args);
  // A flow arrow's start, or its end bound to the slice enclosing `at` ("bp":"e").
  void flow(bool end, int id, std::string_view name, int pid, int tid, TimeNs at);

 private:
  void next();

  std::ostream& out_;
  TimeNs origin_;
  bool first_ = true;
};

}  // namespace bubblescope::analysis
