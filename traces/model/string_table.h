#pragma once
// Interned strings of one trace: every name in the model is a 32-bit id into this table.
//
// Each string is kept once, NUL-terminated, in blocks that never move (a view stays valid as
// the table grows), and found through an open-addressed index of ids: about 30 bytes a string
// besides its text, where a std::string and a hash node each took ~120 (a 10^6-step timeline
// names every step; 10,000 ranks each hold a table).
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

namespace bubblescope::traces {

using StringId = uint32_t;

class StringTable {
 public:
  // Id 0 is always the empty string, so a zero-initialised column means "no name".
  StringTable() { intern(""); }
  // A copy holds its own blocks, with the same ids.
  StringTable(const StringTable& other);
  StringTable& operator=(const StringTable& other);
  StringTable(StringTable&&) noexcept = default;
  StringTable& operator=(StringTable&&) noexcept = default;

  StringId intern(std::string_view s);

  // Looks a string up without adding it.
  bool find(std::string_view s, StringId* id) const;

  // Throws std::out_of_range for an id the table does not hold. The view's data is
  // NUL-terminated.
  std::string_view at(StringId id) const;
  size_t size() const { return strings_.size(); }

  // Moves the strings into one block of their size and gives back the rest: a loaded rank of an
  // op-level timeline names a few dozen things, and its blocks' and list's growth room was half
  // of its table (10,000 ranks: 10 MB). Ids stay; views taken before do not. Interning after it
  // works as before. A table of at most kSearchedInLineMost strings also drops its index and is
  // searched in line until it grows again.
  void shrinkToFit();
  static constexpr size_t kSearchedInLineMost = 64;

 private:
  // The slot holding `s`, or the empty slot where it would go.
  size_t slotOf(std::string_view s, size_t hash) const;
  std::string_view store(std::string_view s);
  void growIndex();

  std::vector<std::unique_ptr<char[]>> blocks_;
  char* free_ = nullptr;  // the unused end of the last block
  size_t left_ = 0;
  std::vector<std::string_view> strings_;  // by id, into the blocks
  std::vector<uint32_t> slots_;  // id + 1 (0: empty); a power of two long, or none (shrinkToFit)
};

}  // namespace bubblescope::traces
