#include "analyzer/result/result.h"

#include <algorithm>
#include <stdexcept>

namespace bubblescope::analysis {

Split& Split::operator+=(const Split& o) {
  span += o.span;
  compute += o.compute;
  exposedComm += o.exposedComm;
  otherBusy += o.otherBusy;
  idle += o.idle;
  for (int i = 0; i < kIdleClasses; ++i) idleByClass[i] += o.idleByClass[i];
  return *this;
}

TimeNs scheduleOwnIdle(const IdleByClass& byClass) {
  TimeNs n = 0;
  for (int c = 0; c < kIdleClasses; ++c) {
    if (isScheduleOwn(idleClassAt(c))) n += byClass[c];
  }
  return n;
}

TimeNs avoidableIdle(const Gap& g) {
  return g.idle - scheduleOwnIdle(g.byClass);
}

TimeNs avoidableIdle(const Split& s) {
  return s.idle - scheduleOwnIdle(s.idleByClass);
}

TimeNs Split::classSum() const {
  TimeNs n = 0;
  for (TimeNs v : idleByClass) n += v;
  return n;
}

const OpRecord& PipelineResult::opOf(int op) const {
  if (opIndex.empty()) return ops.at(static_cast<size_t>(op));
  const auto at = std::lower_bound(opIndex.begin(), opIndex.end(), op);
  if (at == opIndex.end() || *at != op) {
    throw std::out_of_range("op " + std::to_string(op) + " is not among the ops kept");
  }
  return ops[static_cast<size_t>(at - opIndex.begin())];
}

}  // namespace bubblescope::analysis
