#include "analyzer/result.h"

namespace bubblescope::analysis {

const char* idleClassName(IdleClass c) {
  switch (c) {
    case IdleClass::Warmup:
      return "warm-up bubble";
    case IdleClass::Drain:
      return "drain bubble";
    case IdleClass::ScheduleBubble:
      return "schedule bubble";
    case IdleClass::Imbalance:
      return "imbalance";
    case IdleClass::Jitter:
      return "jitter";
    case IdleClass::CommStall:
      return "stall: comm";
    case IdleClass::HostStall:
      return "stall: host";
    case IdleClass::OtherStall:
      return "stall: other";
  }
  return "?";
}

const char* idleClassKey(IdleClass c) {
  switch (c) {
    case IdleClass::Warmup:
      return "warmup";
    case IdleClass::Drain:
      return "drain";
    case IdleClass::ScheduleBubble:
      return "schedule";
    case IdleClass::Imbalance:
      return "imbalance";
    case IdleClass::Jitter:
      return "jitter";
    case IdleClass::CommStall:
      return "stall_comm";
    case IdleClass::HostStall:
      return "stall_host";
    case IdleClass::OtherStall:
      return "stall_other";
  }
  return "?";
}

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
