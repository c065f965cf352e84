#include "traces/import/chrome_json/ndtimeline/thread_names.h"

#include <algorithm>
#include <cstdint>
#include <tuple>

namespace bubblescope::traces::import::ndtimeline {

bool ThreadNames::add(int64_t pid, int64_t tid, std::string_view name) {
  if (name.size() > UINT32_MAX - text_.size()) return false;
  sealed_ = false;
  entries_.push_back(
      {pid, tid, static_cast<uint32_t>(text_.size()), static_cast<uint32_t>(name.size())});
  text_.append(name);
  return true;
}

void ThreadNames::seal() {
  // Stable: among one thread's names, the order they came in, so the last one is the last kept.
  std::stable_sort(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) {
    return std::tie(a.pid, a.tid) < std::tie(b.pid, b.tid);
  });
  size_t kept = 0;
  for (size_t i = 0; i < entries_.size(); ++i) {
    const bool lastOfItsThread = i + 1 == entries_.size() ||
                                 entries_[i + 1].pid != entries_[i].pid ||
                                 entries_[i + 1].tid != entries_[i].tid;
    if (lastOfItsThread) entries_[kept++] = entries_[i];
  }
  entries_.resize(kept);
  entries_.shrink_to_fit();
  text_.shrink_to_fit();
  sealed_ = true;
}

std::optional<std::string_view> ThreadNames::find(int64_t pid, int64_t tid) const {
  if (!sealed_) return std::nullopt;
  const auto it = std::lower_bound(
      entries_.begin(), entries_.end(), std::pair(pid, tid),
      [](const Entry& e, const auto& key) { return std::pair(e.pid, e.tid) < key; });
  if (it == entries_.end() || it->pid != pid || it->tid != tid) return std::nullopt;
  return std::string_view(text_).substr(it->at, it->length);
}

}  // namespace bubblescope::traces::import::ndtimeline
