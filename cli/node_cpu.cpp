#include "cli/node_cpu.h"

#include <charconv>
#include <fstream>
#include <string>

namespace bubblescope::cli {

std::optional<CpuTimes> parseCpuLine(std::string_view line) {
  constexpr std::string_view kTag = "cpu ";
  if (line.substr(0, kTag.size()) != kTag) return std::nullopt;
  line.remove_prefix(kTag.size());
  CpuTimes t;
  int field = 0;
  while (!line.empty()) {
    const size_t start = line.find_first_not_of(' ');
    if (start == std::string_view::npos) break;
    line.remove_prefix(start);
    uint64_t v = 0;
    const auto [end, ec] = std::from_chars(line.data(), line.data() + line.size(), v);
    if (ec != std::errc() || (end != line.data() + line.size() && *end != ' ')) return std::nullopt;
    line.remove_prefix(static_cast<size_t>(end - line.data()));
    // Fields 3 and 4 (from 0) are idle and iowait; guest time is counted in user already.
    if (field == 3 || field == 4) t.idle += v;
    if (field < 8) t.total += v;
    ++field;
  }
  if (field < 4) return std::nullopt;
  return t;
}

std::optional<CpuTimes> readCpuTimes() {
  std::ifstream in("/proc/stat");
  std::string line;
  if (!std::getline(in, line)) return std::nullopt;
  return parseCpuLine(line);
}

std::optional<bool> hadIdleCpu(const CpuTimes& before, const CpuTimes& after, unsigned cores) {
  if (cores == 0 || after.total < before.total || after.idle < before.idle) return std::nullopt;
  const uint64_t total = after.total - before.total;
  if (total < 5u * cores) return std::nullopt;
  // idle / total is the share of all cores' time; half a core is 1 / (2 cores) of it.
  return 2 * (after.idle - before.idle) * cores >= total;
}

}  // namespace bubblescope::cli
