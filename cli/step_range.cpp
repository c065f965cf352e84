#include "cli/step_range.h"

#include <charconv>

#include "cli/usage_error.h"

namespace bubblescope::cli {
namespace {

bool parseNumber(const std::string& s, int64_t* out) {
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && ptr == s.data() + s.size() && *out >= 0;
}

}  // namespace

void parseStepRange(const std::string& spec, analysis::AnalyzeOptions& options) {
  if (spec.empty() || spec == "all") return;
  const auto bad = [&] {
    return UsageError("--steps '" + spec + "' is not N, A:B, A: or :B with step numbers >= 0, or all");
  };
  const auto colon = spec.find(':');
  if (colon == std::string::npos) {
    int64_t n = 0;
    if (!parseNumber(spec, &n)) throw bad();
    options.firstStep = options.lastStep = n;
    return;
  }
  const std::string a = spec.substr(0, colon), b = spec.substr(colon + 1);
  if ((a.empty() && b.empty()) || b.find(':') != std::string::npos) throw bad();
  if (!a.empty() && !parseNumber(a, &options.firstStep)) throw bad();
  if (!b.empty() && !parseNumber(b, &options.lastStep)) throw bad();
  if (options.firstStep > options.lastStep) throw bad();
}

}  // namespace bubblescope::cli
