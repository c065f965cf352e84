#include "analyzer/report/palette.h"

#include <cstdio>
#include <string>

namespace bubblescope::analysis {

Rgb idleClassRgb(IdleClass c) {
  switch (c) {
    case IdleClass::Warmup:
      return {0x93, 0xc5, 0xfd};  // light blue
    case IdleClass::Drain:
      return {0x3b, 0x82, 0xf6};  // blue
    case IdleClass::ScheduleBubble:
      return {0xa5, 0xb4, 0xfc};  // indigo-blue
    case IdleClass::Imbalance:
      return {0xf5, 0x9e, 0x0b};  // amber
    case IdleClass::Jitter:
      return {0xfc, 0xd3, 0x4d};  // light amber
    case IdleClass::CommStall:
      return {0xef, 0x44, 0x44};  // red
    case IdleClass::HostStall:
      return {0x99, 0x1b, 0x1b};  // dark red
    case IdleClass::OtherStall:
      return {0xfc, 0xa5, 0xa5};  // pale red
  }
  return {0, 0, 0};
}

Rgb opKindRgb(OpKind k) {
  switch (k) {
    case OpKind::F:
      return {0x3a, 0xa6, 0x55};  // green
    case OpKind::B:
      return {0x14, 0xb8, 0xa6};  // teal
    case OpKind::W:
      return {0x8d, 0x6c, 0xc4};  // violet
    case OpKind::BW:
      return {0x0f, 0x76, 0x6e};  // dark teal
  }
  return {0, 0, 0};
}

Rgb computeRgb() {
  return opKindRgb(OpKind::F);
}

Rgb exposedCommRgb() {
  return {0x47, 0x55, 0x69};  // slate
}

Rgb otherBusyRgb() {
  return {0xa3, 0xa3, 0xa3};  // grey
}

std::string hexColour(Rgb c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", c.r, c.g, c.b);
  return buf;
}

}  // namespace bubblescope::analysis
