#include "traces/model/string_table.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>

namespace bubblescope::traces {
namespace {

// Blocks start small (a rank of an op-level timeline names a few dozen things) and double up to
// this; a longer string gets a block of its own.
constexpr size_t kFirstBlock = 256;
constexpr size_t kLargestBlock = size_t{64} << 10;

size_t hashOf(std::string_view s) {
  return std::hash<std::string_view>{}(s);
}

}  // namespace

StringTable::StringTable(const StringTable& other) : StringTable() {
  // Interned in id order, each string gets the id it had: the other holds each one once.
  for (size_t id = 1; id < other.size(); ++id) intern(other.strings_[id]);
}

StringTable& StringTable::operator=(const StringTable& other) {
  if (this != &other) *this = StringTable(other);
  return *this;
}

size_t StringTable::slotOf(std::string_view s, size_t hash) const {
  const size_t mask = slots_.size() - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    const uint32_t held = slots_[i];
    if (held == 0 || strings_[held - 1] == s) return i;
  }
}

std::string_view StringTable::store(std::string_view s) {
  const size_t need = s.size() + 1;  // its NUL
  if (need > left_) {
    const size_t grown = blocks_.size() < 16 ? kFirstBlock << blocks_.size() : kLargestBlock;
    const size_t size = std::max(need, std::min(grown, kLargestBlock));
    blocks_.push_back(std::make_unique<char[]>(size));
    free_ = blocks_.back().get();
    left_ = size;
  }
  char* at = free_;
  if (!s.empty()) std::memcpy(at, s.data(), s.size());
  at[s.size()] = '\0';
  free_ += need;
  left_ -= need;
  return {at, s.size()};
}

void StringTable::growIndex() {
  // Doubled while the table grows; sized afresh for a table whose index shrinkToFit dropped.
  size_t slots = std::max<size_t>(16, slots_.size() * 2);
  while (slots < 2 * (strings_.size() + 1)) slots *= 2;
  slots_.assign(slots, 0);
  for (size_t id = 0; id < strings_.size(); ++id) {
    slots_[slotOf(strings_[id], hashOf(strings_[id]))] = static_cast<uint32_t>(id + 1);
  }
}

void StringTable::shrinkToFit() {
  size_t bytes = 0;
  for (std::string_view s : strings_) bytes += s.size() + 1;  // each with its NUL
  auto block = std::make_unique<char[]>(bytes);
  char* at = block.get();
  for (std::string_view& s : strings_) {
    if (!s.empty()) std::memcpy(at, s.data(), s.size());
    at[s.size()] = '\0';
    s = {at, s.size()};
    at += s.size() + 1;
  }
  blocks_.clear();
  blocks_.push_back(std::move(block));
  blocks_.shrink_to_fit();
  free_ = nullptr;
  left_ = 0;
  strings_.shrink_to_fit();
  // A small table is searched in line, as fast as through its hash index, and the index was two
  // fifths of a loaded rank's table (10,000 ranks: 15 MB). intern() builds it again.
  if (strings_.size() <= kSearchedInLineMost) std::vector<uint32_t>().swap(slots_);
}

StringId StringTable::intern(std::string_view s) {
  // A table searched in line (shrinkToFit) is indexed again only to add a string: a lookup
  // through intern() leaves it as small as it is. (Only the constructor's "" finds no table.)
  if (slots_.empty() && !strings_.empty()) {
    if (StringId id = 0; find(s, &id)) return id;
  }
  // At most half full: probes stay short. Also where shrinkToFit dropped the index.
  if (2 * (strings_.size() + 1) > slots_.size()) growIndex();
  const size_t slot = slotOf(s, hashOf(s));
  if (slots_[slot] != 0) return slots_[slot] - 1;
  const auto id = static_cast<StringId>(strings_.size());
  strings_.push_back(store(s));
  slots_[slot] = id + 1;
  return id;
}

bool StringTable::find(std::string_view s, StringId* id) const {
  if (slots_.empty()) {
    const auto at = std::find(strings_.begin(), strings_.end(), s);
    if (at == strings_.end()) return false;
    *id = static_cast<StringId>(at - strings_.begin());
    return true;
  }
  const uint32_t held = slots_[slotOf(s, hashOf(s))];
  if (held == 0) return false;
  *id = held - 1;
  return true;
}

std::string_view StringTable::at(StringId id) const {
  if (id >= strings_.size()) {
    throw std::out_of_range("string id " + std::to_string(id) + " not in a table of " +
                            std::to_string(strings_.size()));
  }
  return strings_[id];
}

}  // namespace bubblescope::traces
