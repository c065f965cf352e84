#pragma once
// One unit of pipeline work on one stage: forward (F), input gradient (B), weight gradient (W),
// or a combined backward (BW), for one microbatch and one model chunk (virtual stage).
#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

namespace bubblescope::engine {

enum class OpKind : uint8_t { F, B, W, BW };

struct Op {
  OpKind kind = OpKind::F;
  int mb = 0;     // microbatch, 0-based
  int chunk = 0;  // model chunk on its stage, 0-based

  auto operator<=>(const Op&) const = default;
};

const char* kindName(OpKind kind);  // "F", "B", "W", "BW"
// The kind kindName() names; std::invalid_argument for any other text.
OpKind kindFromName(std::string_view name);
// "F3" for chunk 0, "F3.1" for chunk 1: the label used in text timelines.
std::string label(const Op& op);

}  // namespace bubblescope::engine
