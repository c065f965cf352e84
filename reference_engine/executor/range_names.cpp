#include "reference_engine/executor/range_names.h"

namespace bubblescope::engine {
namespace {

std::string mbAndChunk(int mb, int chunk) {
  std::string s = "mb=" + std::to_string(mb);
  if (chunk != 0) s += " ch=" + std::to_string(chunk);
  return s;
}

}  // namespace

std::string opRangeName(const Op& op) {
  return std::string(kindName(op.kind)) + " " + mbAndChunk(op.mb, op.chunk);
}

std::string sendRangeName(bool gradient, int mb, int chunk, int toStage) {
  return std::string(gradient ? "SEND B " : "SEND F ") + mbAndChunk(mb, chunk) +
         " to=" + std::to_string(toStage);
}

std::string recvRangeName(bool gradient, int mb, int chunk, int fromStage) {
  return std::string(gradient ? "RECV B " : "RECV F ") + mbAndChunk(mb, chunk) +
         " from=" + std::to_string(fromStage);
}

std::string stepRangeName(int step) {
  return "step " + std::to_string(step);
}

}  // namespace bubblescope::engine
