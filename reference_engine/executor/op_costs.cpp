#include "reference_engine/executor/op_costs.h"

#include <charconv>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "reference_engine/executor/clock.h"

namespace bubblescope::engine {
namespace {

uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

double OpCosts::ms(OpKind kind) const {
  switch (kind) {
    case OpKind::F:
      return fMs;
    case OpKind::B:
      return bMs;
    case OpKind::W:
      return wMs;
    case OpKind::BW:
      return bMs + wMs;
  }
  return 0;
}

OpCosts parseOpMs(std::string_view text, OpCosts base) {
  std::vector<double> values;
  size_t begin = 0;
  while (true) {
    size_t comma = text.find(',', begin);
    std::string_view field = text.substr(begin, comma - begin);
    double v = 0;
    auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), v);
    if (field.empty() || ec != std::errc() || end != field.data() + field.size() ||
        !std::isfinite(v) || v < 0) {
      throw std::invalid_argument("--op-ms '" + std::string(text) +
                                  "': expected F,B,W in ms (each 0 or more), e.g. 2,2,1");
    }
    values.push_back(v);
    if (comma == std::string_view::npos) break;
    begin = comma + 1;
  }
  if (values.size() == 1) values = {values[0], values[0], values[0]};
  if (values.size() != 3) {
    throw std::invalid_argument("--op-ms '" + std::string(text) +
                                "': expected F,B,W in ms or one value for all, e.g. 2,2,1");
  }
  base.fMs = values[0];
  base.bMs = values[1];
  base.wMs = values[2];
  return base;
}

double uniformDraw(uint64_t seed, uint64_t a, uint64_t b, uint64_t c) {
  uint64_t h = splitmix64(seed);
  h = splitmix64(h ^ a);
  h = splitmix64(h ^ (b << 1));
  h = splitmix64(h ^ (c << 2));
  // 53 random bits → [0, 1) → [-1, 1)
  return static_cast<double>(h >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

double CostModel::scale(int stage, int step, int opIndex) const {
  double s = faults_.slowFactor(stage, step);
  if (faults_.jitterPct > 0) {
    s *= 1.0 + faults_.jitterPct / 100.0 *
                   uniformDraw(seed_, static_cast<uint64_t>(stage), static_cast<uint64_t>(step),
                               static_cast<uint64_t>(opIndex));
  }
  return s;
}

int64_t CostModel::opNs(int stage, int step, int opIndex, OpKind kind) const {
  return msToNs(costs_.ms(kind) * scale(stage, step, opIndex));
}

int64_t CostModel::optimizerNs() const {
  return msToNs(costs_.optimizerMs);
}

}  // namespace bubblescope::engine
