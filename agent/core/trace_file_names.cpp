#include "agent/core/trace_file_names.h"

#include <string_view>

namespace bubblescope::agent {

traces::RankMeta withoutRank(traces::RankMeta meta) {
  if (meta.rank >= 0) meta.extra["claimed_rank"] = std::to_string(meta.rank);
  meta.rank = -1;
  return meta;
}

std::string partName(const std::string& fileName, const std::string& fallbackName, int part) {
  constexpr std::string_view kExtension = ".sqlite";
  std::string stem = fallbackName.empty() ? fileName : fallbackName;
  if (stem.ends_with(kExtension)) stem.resize(stem.size() - kExtension.size());
  return stem + ".part-" + std::to_string(part) + std::string(kExtension);
}

}  // namespace bubblescope::agent
