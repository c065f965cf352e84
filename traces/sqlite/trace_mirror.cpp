#include "traces/sqlite/trace_mirror.h"

#include <sqlite3.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "traces/errors.h"
#include "traces/sqlite/sqlite_db.h"

namespace bubblescope::traces {

using sqlite::Statement;

namespace {

// Tables whose rows the writer only appends: copied by row id, the newest first seen. Strings
// first: the rows after them name them.
constexpr const char* kAppended[] = {"strings",   "clock_anchors", "nvtx_ranges",  "nvtx_marks",
                                     "kernels",   "memcpys",       "memsets",      "syncs",
                                     "api_calls", "nccl_calls",    "correlations", "memory_usage"};
// Small tables the writer rewrites in place (metadata, names, windows, drops, the open ranges):
// copied whole whenever the file changed, over the rows of the same key.
constexpr const char* kRewritten[] = {"meta",    "capture_windows", "dropped_events", "threads",
                                      "devices", "streams",         "open_ranges"};
// Of those, the ones whose rows are the file's alone (a window list, a snapshot): cleared first.
bool replacedWhole(std::string_view table) {
  return table == "capture_windows" || table == "open_ranges";
}
// Columns holding a string's id: renumbered into the mirror's strings.
bool namesAString(std::string_view column) {
  return column == "name_id" || column == "domain_id";
}
constexpr int kAppendedCount = static_cast<int>(std::size(kAppended));
constexpr int kTableCount = kAppendedCount + static_cast<int>(std::size(kRewritten));

std::string placeholders(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += i == 0 ? "?" : ",?";
  return s;
}

}  // namespace

struct TraceMirror::Table {
  const char* name = nullptr;
  bool appended = false;
  std::optional<Statement> read;    // on the file's connection
  std::optional<Statement> clear;   // on the mirror's (rewritten tables)
  std::optional<Statement> insert;  // on the mirror's
  int columns = 0;
  std::vector<bool> stringColumn;  // by copied column: a string's id
  int64_t lastRowId = -1;          // appended tables: the newest row copied
};

TraceMirror::TraceMirror(TraceWriter& file, TraceWriter& mirror, bool fromStart)
    : file_(&file), mirror_(&mirror), tables_(new Table[kTableCount]) {
  try {
    sqlite::Database& from = *file.db_;
    sqlite::Database& to = *mirror.db_;
    for (int i = 0; i < kTableCount; ++i) {
      Table& t = tables_[i];
      t.appended = i < kAppendedCount;
      t.name = t.appended ? kAppended[i] : kRewritten[i - kAppendedCount];
      const std::string name = t.name;
      if (t.appended) {
        t.read.emplace(from.prepare("SELECT rowid, * FROM " + name + " WHERE rowid > ?1"));
        t.columns = t.read->columns() - 1;
        // Strings and anchors are few, and every event copied later needs them.
        const bool whole = fromStart || name == "strings" || name == "clock_anchors";
        if (!whole) {
          Statement last = from.prepare("SELECT max(rowid) FROM " + name);
          if (last.step() && !last.isNull(0)) t.lastRowId = last.int64(0);
        }
      } else {
        t.read.emplace(from.prepare("SELECT * FROM " + name));
        t.columns = t.read->columns();
        if (replacedWhole(name)) t.clear.emplace(to.prepare("DELETE FROM " + name));
      }
      const int first = t.appended ? 1 : 0;
      for (int c = 0; c < t.columns; ++c) {
        t.stringColumn.push_back(namesAString(t.read->columnName(c + first)));
      }
      // Strings are interned into the mirror's own (it may hold names of its own already).
      if (name == "strings") continue;
      // OR REPLACE: the mirror made its own metadata when it was created.
      t.insert.emplace(to.prepare("INSERT OR REPLACE INTO " + name + " VALUES(" +
                                  placeholders(t.columns) + ")"));
    }
  } catch (const sqlite::SqliteError& e) {
    throw TraceError(mirror.file(), std::string("cannot follow the trace file: ") + e.what());
  }
}

TraceMirror::~TraceMirror() = default;

void TraceMirror::copyCommitted() {
  sqlite3* from = file_->db_->handle();
  // Nothing inserted, updated or deleted since the last copy: nothing to do (most cycles of a
  // quiet process).
  const int64_t changes = sqlite3_total_changes64(from);
  if (changes == changesSeen_) return;
  try {
    mirror_->commit();
    mirror_->begin();
    for (int i = 0; i < kTableCount; ++i) {
      Table& t = tables_[i];
      if (t.appended) t.read->bind(1, t.lastRowId);
      if (t.clear) t.clear->run();
      // Offset of the first copied column: appended tables read their row id first.
      const int first = t.appended ? 1 : 0;
      while (t.read->step()) {
        if (!t.insert) {  // strings: (row id, id, value)
          const int64_t id = t.read->int64(1);
          if (id >= 0 && id < (int64_t{1} << 32)) {
            if (static_cast<uint64_t>(id) >= ids_.size()) ids_.resize(static_cast<size_t>(id) + 1);
            ids_[static_cast<size_t>(id)] = mirror_->intern(t.read->text(2));
          }
        } else {
          for (int c = 0; c < t.columns; ++c) {
            if (t.stringColumn[static_cast<size_t>(c)]) {
              const int64_t id = t.read->int64(c + first);
              const bool known = id >= 0 && static_cast<uint64_t>(id) < ids_.size();
              t.insert->bind(c + 1,
                             static_cast<int64_t>(known ? ids_[static_cast<size_t>(id)] : 0));
            } else {
              t.insert->bindColumn(c + 1, *t.read, c + first);
            }
          }
          t.insert->run();
        }
        if (t.appended) t.lastRowId = t.read->int64(0);
      }
      t.read->reset();  // no read transaction left open on the file
    }
    mirror_->commit();
  } catch (const std::exception& e) {
    // The mirror is given up (its owner ends the watch): its batch goes, whatever it held.
    for (int i = 0; i < kTableCount; ++i) tables_[i].read->reset();
    sqlite3_exec(mirror_->db_->handle(), "ROLLBACK", nullptr, nullptr, nullptr);
    mirror_->inBatch_ = false;
    throw TraceError(mirror_->file(),
                     std::string("cannot copy the trace file's rows: ") + e.what());
  }
  changesSeen_ = changes;
}

}  // namespace bubblescope::traces
