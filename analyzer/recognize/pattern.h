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
  // Every name the pattern matches sorts between these (RE2's PossibleMatchRange): a name outside
  // is refused by two comparisons, not a match. A run tries each name against every rule of
  // every set, and most rules start with a literal ("PP:", "forward-compute", "step ") that
  // most names do not: on an op-level timeline whose every step has a name of its own, the
  // tries were most of its recognition (issue 28). Not `bounded_` where RE2 gives no range or
  // no upper bound (a pattern that can start with anything).
  std::string least_, most_;
  bool bounded_ = false;
};

}  // namespace bubblescope::analysis
