#include "analyzer/recognize/pattern.h"

#include <re2/re2.h>

#include <stdexcept>

namespace bubblescope::analysis {
namespace {

RE2::Options options() {
  RE2::Options o;
  o.set_log_errors(false);          // a bad user pattern is reported once, in our words
  o.set_max_mem(int64_t{8} << 20);  // a pattern needing more is refused, not slowly matched
  return o;
}

}  // namespace

Pattern::Pattern(const std::string& source) {
  auto re = std::make_shared<const re2::RE2>(source, options());
  if (!re->ok()) throw std::invalid_argument(re->error());
  // 16 bytes bound a name by its first characters, all any rule's literal needs.
  // An empty `most_` would mean no upper bound, not "nothing".
  bounded_ = re->PossibleMatchRange(&least_, &most_, 16) && !most_.empty();
  re_ = std::move(re);
}

int Pattern::groups() const {
  return re_ ? re_->NumberOfCapturingGroups() : 0;
}

bool Pattern::fullMatch(std::string_view name, std::vector<std::string_view>& captures,
                        std::vector<bool>& matched) const {
  if (!re_ || name.size() > kMaxMatchedNameBytes) return false;
  if (bounded_ && (name < least_ || name > most_)) return false;
  const int n = 1 + re_->NumberOfCapturingGroups();
  // Reused: a run tries every rule on every range, and a fresh vector a try was an allocation.
  thread_local std::vector<re2::StringPiece> pieces;
  pieces.assign(static_cast<size_t>(n), re2::StringPiece());
  const re2::StringPiece text(name.data(), name.size());
  if (!re_->Match(text, 0, text.size(), RE2::ANCHOR_BOTH, pieces.data(), n)) return false;
  captures.assign(static_cast<size_t>(n), {});
  matched.assign(static_cast<size_t>(n), false);
  for (int i = 0; i < n; ++i) {
    if (pieces[i].data() == nullptr) continue;
    captures[i] = std::string_view(pieces[i].data(), pieces[i].size());
    matched[i] = true;
  }
  return true;
}

}  // namespace bubblescope::analysis
