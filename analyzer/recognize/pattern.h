#pragma once
// A rule's pattern, compiled by RE2: matching is linear in the name and never recurses, so no name
// a recording holds (NVTX strings are kept whole; one of 40 KB crashed std::regex) and no pattern
// a user writes can crash or stall the analysis.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace re2 {
class RE2;
}

namespace bubblescope::analysis {

// Names longer than this are no framework's label: they are not matched at all, which bounds what
// one name can cost.
inline constexpr size_t kMaxMatchedNameBytes = 4096;

class Pattern {
 public:
  Pattern() = default;
  // Throws std::invalid_argument with RE2's reason when RE2 cannot compile `source` (a syntax
  // error, a backreference or lookaround, which RE2 leaves out, or a pattern too large).
  explicit Pattern(const std::string& source);

  int groups() const;  // capture groups
  // Whether the pattern matches all of `name`; `captures[i]` is group i (empty when it did not
  // take part; `matched[i]` says which).
  bool fullMatch(std::string_view name, std::vector<std::string_view>& captures,
                 std::vector<bool>& matched) const;

 private:
  std::shared_ptr<const re2::RE2> re_;
};

}  // namespace bubblescope::analysis
