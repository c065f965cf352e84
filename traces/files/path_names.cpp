#include "traces/files/path_names.h"

#include <vector>

namespace bubblescope::traces {
namespace {

std::vector<std::filesystem::path> parts(const std::filesystem::path& p) {
  std::vector<std::filesystem::path> out;
  for (const auto& part : p.lexically_normal()) {
    if (!part.empty()) out.push_back(part);
  }
  return out;
}

// The last `n` parts of `p`, joined.
std::string tail(const std::vector<std::filesystem::path>& p, size_t n) {
  std::filesystem::path out;
  for (size_t i = p.size() - n; i < p.size(); ++i) out /= p[i];
  return out.string();
}

}  // namespace

std::pair<std::string, std::string> distinctNames(const std::filesystem::path& a,
                                                  const std::filesystem::path& b) {
  const auto pa = parts(a), pb = parts(b);
  for (size_t n = 1; n <= pa.size() && n <= pb.size(); ++n) {
    if (pa[pa.size() - n] != pb[pb.size() - n]) return {tail(pa, n), tail(pb, n)};
  }
  return {a.string(), b.string()};
}

}  // namespace bubblescope::traces
