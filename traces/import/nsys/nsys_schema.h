#pragma once
// What an Nsight Systems SQLite export holds. Its tables appear only when they have data and
// their columns change across versions, so every query is built from what the file has.
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "traces/sqlite/sqlite_db.h"

namespace bubblescope::traces::import {

class NsysSchema {
 public:
  explicit NsysSchema(sqlite::Database& db);

  bool has(std::string_view table) const { return tables_.count(std::string(table)) > 0; }
  bool has(std::string_view table, std::string_view column) const;
  // The first of `columns` the table has, or "".
  std::string firstOf(std::string_view table,
                      std::initializer_list<std::string_view> columns) const;

  // SQL for the text a column names: a StringIds id (newer exports) or the text itself.
  std::string text(std::string_view column) const;
  // SQL for an optional column: the column, or `fallback` when the table lacks it.
  std::string column(std::string_view table, std::string_view column,
                     std::string_view fallback = "NULL") const;

  // An enum table's id for a name (ENUM_NSYS_EVENT_TYPE 'NvtxPushPopRange' -> 59), or `fallback`
  // when the table has no integer id for it.
  int64_t enumId(std::string_view table, std::string_view name, int64_t fallback) const;

  // A META_DATA_* / TARGET_INFO_SYSTEM_ENV style name -> value table, as a map.
  std::map<std::string, std::string> pairs(std::string_view table, std::string_view nameColumn,
                                           std::string_view valueColumn) const;

 private:
  sqlite::Database& db_;
  std::set<std::string> tables_;
  mutable std::map<std::string, std::set<std::string>> columns_;
};

}  // namespace bubblescope::traces::import
