#pragma once
// The viewer's colors: op kinds and idle classes come from the reports' palette
// (analyzer/report/palette.h), so a class looks the same in the window, the HTML report and the
// SVGs; the raw-trace rows (kernels, copies, NVTX, NCCL) add muted colors that never read as idle.
#include <cstdint>
#include <string_view>

#include "analyzer/report/palette.h"
#include "analyzer/result/result.h"

namespace bubblescope::gui {

// Packed as Dear ImGui's IM_COL32: R in the low byte, then G, B and alpha.
using Rgba = uint32_t;

constexpr Rgba rgba(uint8_t r, uint8_t g, uint8_t b, uint8_t a = 255) {
  return static_cast<Rgba>(r) | static_cast<Rgba>(g) << 8 | static_cast<Rgba>(b) << 16 |
         static_cast<Rgba>(a) << 24;
}
inline Rgba rgba(analysis::Rgb c, uint8_t a = 255) {
  return rgba(c.r, c.g, c.b, a);
}
analysis::Rgb rgbOf(Rgba c);
// Towards black by `f` (0..1), alpha kept.
Rgba darker(Rgba c, double f);

Rgba opColor(analysis::OpKind k);
Rgba ghostColor(analysis::OpKind k);  // the ideal schedule: the op's color, faded
Rgba idleColor(analysis::IdleClass c);
Rgba computeKernelColor();
Rgba commKernelColor();  // NCCL kernels and calls (the reports' exposed-communication slate)
Rgba memcpyColor();
Rgba memsetColor();
Rgba nvtxColor(std::string_view name);  // stable per name, from a muted set
Rgba tailColor();                       // grad sync + optimizer after the last op of a step

// Row and chrome colors for the dark theme.
inline constexpr Rgba kBackground = rgba(0x1e, 0x21, 0x26);
inline constexpr Rgba kRowAltBackground = rgba(0x24, 0x28, 0x2e);
inline constexpr Rgba kText = rgba(0xe5, 0xe7, 0xeb);
inline constexpr Rgba kDarkText = rgba(0x11, 0x18, 0x27);
inline constexpr Rgba kGrid = rgba(0x37, 0x3d, 0x47);
inline constexpr Rgba kSelection = rgba(0x60, 0xa5, 0xfa, 0x40);
inline constexpr Rgba kSearchHit = rgba(0xff, 0xff, 0xff);
inline constexpr Rgba kArrow = rgba(0xe5, 0xe7, 0xeb, 0xb0);

// The hang's marks (docs/hang.md): a pure red none of the idle classes' reds is near, so a wait
// never reads as a stall; open boxes dark under a red outline and hatching.
inline constexpr Rgba kHangRed = rgba(0xff, 0x1a, 0x1a);
inline constexpr Rgba kHangOpenFill = rgba(0x4a, 0x0d, 0x14);
inline constexpr Rgba kHangUnwoundFill = rgba(0x3b, 0x2f, 0x33);
inline constexpr Rgba kHangStoppedFill = rgba(0x33, 0x36, 0x3d);
inline constexpr Rgba kHangHatch = rgba(0xff, 0x1a, 0x1a, 0x80);
inline constexpr Rgba kLastSeen = rgba(0xff, 0xff, 0xff);
inline constexpr Rgba kHangBanner = rgba(0x5a, 0x10, 0x18);

}  // namespace bubblescope::gui
