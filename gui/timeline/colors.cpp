#include "gui/timeline/colors.h"

#include <array>

namespace bubblescope::gui {

analysis::Rgb rgbOf(Rgba c) {
  return {static_cast<uint8_t>(c & 0xff), static_cast<uint8_t>(c >> 8 & 0xff),
          static_cast<uint8_t>(c >> 16 & 0xff)};
}

Rgba darker(Rgba c, double f) {
  const auto scale = [f](uint32_t v) { return static_cast<uint8_t>(v * (1.0 - f)); };
  return rgba(scale(c & 0xff), scale(c >> 8 & 0xff), scale(c >> 16 & 0xff),
              static_cast<uint8_t>(c >> 24));
}

Rgba opColor(analysis::OpKind k) {
  return rgba(analysis::opKindRgb(k));
}

Rgba ghostColor(analysis::OpKind k) {
  return rgba(analysis::opKindRgb(k), 0x70);
}

Rgba idleColor(analysis::IdleClass c) {
  return rgba(analysis::idleClassRgb(c));
}

Rgba computeKernelColor() {
  return rgba(0x8b, 0x95, 0x9e);  // neutral grey: busy, whatever op it belongs to
}

Rgba commKernelColor() {
  return rgba(analysis::exposedCommRgb());
}

Rgba memcpyColor() {
  return rgba(0xc8, 0x9f, 0x6e);  // tan
}

Rgba memsetColor() {
  return rgba(0xa8, 0x7c, 0x8a);  // mauve
}

Rgba nvtxColor(std::string_view name) {
  // Muted olive, sand, sage, plum, stone, moss: distinct from the op, idle and kernel colors.
  static constexpr std::array<Rgba, 6> kSet = {rgba(0x8a, 0x8f, 0x5c), rgba(0xb8, 0xa8, 0x7a),
                                               rgba(0x7d, 0x9c, 0x86), rgba(0x8e, 0x76, 0x98),
                                               rgba(0x9a, 0x94, 0x8c), rgba(0x6f, 0x80, 0x5a)};
  uint32_t h = 2166136261u;  // FNV-1a: the same color for a name on every run and machine
  for (char c : name) h = (h ^ static_cast<uint8_t>(c)) * 16777619u;
  return kSet[h % kSet.size()];
}

Rgba tailColor() {
  return rgba(analysis::otherBusyRgb());
}

}  // namespace bubblescope::gui
