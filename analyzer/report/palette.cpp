#include "analyzer/report/palette.h"

#include <cstdio>
#include <string>

namespace bubblescope::analysis {

Rgb idleClassRgb(IdleClass c) {
  return idleClassInfo(c).rgb;
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

std::string hexColor(Rgb c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", c.r, c.g, c.b);
  return buf;
}

}  // namespace bubblescope::analysis
