#pragma once
// One event table of a rank (events.h), held only once the rank has such events. A table's empty
// columns cost 24 bytes each, and a rank has ~65 of them in eleven tables: 1.5 KB a rank before
// any event, most of what a rank may take on a 10,000-stage job whose ranks have ~50 events each,
// nearly all NVTX ranges (issue 28). Read through a const group, an absent table is one shared
// empty table; used through a non-const one, it is made.
#include <atomic>
#include <memory>
#include <utility>

namespace bubblescope::traces {

template <class Table>
class ColumnGroup {
 public:
  ColumnGroup() = default;
  ~ColumnGroup() { delete table_.load(std::memory_order_relaxed); }
  ColumnGroup(const ColumnGroup& other) : table_(copyOf(other)) {}
  ColumnGroup(ColumnGroup&& other) noexcept : table_(other.release()) {}
  ColumnGroup& operator=(const ColumnGroup& other) {
    if (this != &other) replace(copyOf(other));
    return *this;
  }
  ColumnGroup& operator=(ColumnGroup&& other) noexcept {
    if (this != &other) replace(other.release());
    return *this;
  }
  ColumnGroup& operator=(Table table) {
    edit() = std::move(table);
    return *this;
  }

  const Table* operator->() const { return &read(); }
  const Table& operator*() const { return read(); }
  // Readers take a table as the table (`const Kernels&`), never as the group.
  operator const Table&() const { return read(); }  // NOLINT(google-explicit-constructor)

  Table* operator->() { return &edit(); }
  Table& operator*() { return edit(); }
  operator Table&() { return edit(); }  // NOLINT(google-explicit-constructor)

  // Whether the table was made: code over every table (sorting, encoding) skips the others
  // rather than make them.
  bool held() const { return table_.load(std::memory_order_acquire) != nullptr; }

  // The table, made if absent. Threads that read one rank through non-const references (each
  // reading, none writing, as they could before tables were made lazily) may make it at once:
  // the first one made wins, the others are freed.
  Table& edit() {
    Table* t = table_.load(std::memory_order_acquire);
    if (t != nullptr) return *t;
    auto made = std::make_unique<Table>();
    if (table_.compare_exchange_strong(t, made.get(), std::memory_order_acq_rel)) {
      return *made.release();
    }
    return *t;  // another thread's
  }

  // Frees the table when it holds no event: a loader ends with it, so a table made on the way
  // (a non-const read) costs nothing after.
  void dropIfEmpty() {
    if (held() && read().size() == 0) replace(nullptr);
  }
  void reset() { replace(nullptr); }

 private:
  const Table& read() const {
    static const Table kEmpty;
    const Table* t = table_.load(std::memory_order_acquire);
    return t != nullptr ? *t : kEmpty;
  }
  static Table* copyOf(const ColumnGroup& other) {
    return other.held() ? new Table(other.read()) : nullptr;
  }
  Table* release() { return table_.exchange(nullptr, std::memory_order_acq_rel); }
  void replace(Table* t) { delete table_.exchange(t, std::memory_order_acq_rel); }

  std::atomic<Table*> table_{nullptr};
};

}  // namespace bubblescope::traces
