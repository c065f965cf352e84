#include "reference_engine/schedule/op.h"

#include <stdexcept>

namespace bubblescope::engine {

const char* kindName(OpKind kind) {
  switch (kind) {
    case OpKind::F: return "F";
    case OpKind::B: return "B";
    case OpKind::W: return "W";
    case OpKind::BW: return "BW";
  }
  return "?";
}

OpKind kindFromName(std::string_view name) {
  for (OpKind k : {OpKind::F, OpKind::B, OpKind::W, OpKind::BW}) {
    if (name == kindName(k)) return k;
  }
  throw std::invalid_argument("unknown op kind '" + std::string(name) + "'");
}

std::string label(const Op& op) {
  std::string s = kindName(op.kind) + std::to_string(op.mb);
  if (op.chunk != 0) s += "." + std::to_string(op.chunk);
  return s;
}

}  // namespace bubblescope::engine
