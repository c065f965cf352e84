#include "analyzer/recognize/rule_set.h"

#include <charconv>

namespace bubblescope::analysis {
namespace {

std::optional<int64_t> group(const std::cmatch& m, int index) {
  if (index <= 0 || index >= static_cast<int>(m.size()) || !m[index].matched) return std::nullopt;
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(m[index].first, m[index].second, v);
  if (ec != std::errc() || ptr != m[index].second) return std::nullopt;
  return v;
}

}  // namespace

std::optional<Match> Rule::apply(std::string_view name) const {
  std::cmatch m;
  if (!std::regex_match(name.data(), name.data() + name.size(), m, pattern)) return std::nullopt;
  Match out;
  out.role = role;
  if (kind) out.kind = *kind;
  if (kindGroup > 0) {
    auto it = kinds.find(m[kindGroup].str());
    if (it == kinds.end()) return std::nullopt;
    out.kind = it->second;
  }
  if (auto v = group(m, mbGroup)) out.mb = static_cast<int>(*v);
  if (auto v = group(m, chunkGroup)) out.chunk = static_cast<int>(*v);
  if (auto v = group(m, peerGroup)) out.peer = static_cast<int>(*v);
  if (auto v = group(m, stageGroup)) out.stage = static_cast<int>(*v);
  if (auto v = group(m, stepGroup)) out.step = *v;
  return out;
}

std::optional<Match> RuleSet::match(std::string_view label) const {
  for (const Rule& r : rules) {
    if (auto m = r.apply(label)) return m;
  }
  return std::nullopt;
}

}  // namespace bubblescope::analysis
