#include "analyzer/result/result.h"

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

TimeNs Split::classSum() const {
  TimeNs n = 0;
  for (TimeNs v : idleByClass) n += v;
  return n;
}

}  // namespace bubblescope::analysis
