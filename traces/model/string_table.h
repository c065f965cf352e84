#pragma once
// Interned strings of one trace: every name in the model is a 32-bit id into this table.
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>

namespace bubblescope::traces {

using StringId = uint32_t;

class StringTable {
 public:
  // Id 0 is always the empty string, so a zero-initialised column means "no name".
  StringTable() { intern(""); }

  StringId intern(std::string_view s) {
    if (auto it = index_.find(s); it != index_.end()) return it->second;
    const auto id = static_cast<StringId>(strings_.size());
    const std::string& stored = strings_.emplace_back(s);
    index_.emplace(std::string_view(stored), id);
    return id;
  }

  // Looks a string up without adding it.
  bool find(std::string_view s, StringId* id) const {
    auto it = index_.find(s);
    if (it == index_.end()) return false;
    *id = it->second;
    return true;
  }

  std::string_view at(StringId id) const { return strings_.at(id); }
  size_t size() const { return strings_.size(); }

 private:
  std::deque<std::string> strings_;  // deque: references stay valid as it grows
  std::unordered_map<std::string_view, StringId> index_;
};

}  // namespace bubblescope::traces
