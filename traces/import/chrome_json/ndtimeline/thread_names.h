#pragma once
// The thread_name metadata of an NDTimeline timeline, by (pid, tid): a timeline names every
// rank's five timer threads, and held as a map of strings 20,000 ranks' names were 14.5 MB of the
// import's peak; here each is 24 bytes and its text (issue 28). Names are added as the metadata
// events come (a later one for the same thread replaces the earlier), then sealed before they
// are looked up. Pure: no I/O.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bubblescope::traces::import::ndtimeline {

class ThreadNames {
 public:
  // False, and nothing added, past 4 GiB of names.
  bool add(int64_t pid, int64_t tid, std::string_view name);
  // Sorts by thread and keeps each thread's last name; gives the growth room back.
  void seal();
  // The thread's name; none for a thread without one (or before seal()).
  std::optional<std::string_view> find(int64_t pid, int64_t tid) const;

 private:
  struct Entry {
    int64_t pid = 0, tid = 0;
    uint32_t at = 0;      // into text_
    uint32_t length = 0;  // the name's
  };
  std::vector<Entry> entries_;
  std::string text_;
  bool sealed_ = false;
};

}  // namespace bubblescope::traces::import::ndtimeline
