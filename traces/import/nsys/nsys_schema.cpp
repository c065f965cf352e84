#include "traces/import/nsys/nsys_schema.h"

namespace bubblescope::traces::import {

NsysSchema::NsysSchema(sqlite::Database& db) : db_(db) {
  auto st = db_.prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')");
  while (st.step()) tables_.emplace(st.text(0));
}

bool NsysSchema::has(std::string_view table, std::string_view column) const {
  if (!has(table)) return false;
  auto [it, added] = columns_.try_emplace(std::string(table));
  if (added) {
    // Table names come from sqlite_master, so quoting them is enough.
    auto st = db_.prepare("PRAGMA table_info(\"" + std::string(table) + "\")");
    while (st.step()) it->second.emplace(st.text(1));
  }
  return it->second.count(std::string(column)) > 0;
}

std::string NsysSchema::firstOf(std::string_view table,
                                std::initializer_list<std::string_view> columns) const {
  for (std::string_view c : columns) {
    if (has(table, c)) return std::string(c);
  }
  return {};
}

std::string NsysSchema::text(std::string_view column) const {
  const std::string c(column);
  if (!has("StringIds")) return c;
  return "CASE typeof(" + c + ") WHEN 'integer' THEN (SELECT value FROM StringIds WHERE id = " + c +
         ") ELSE " + c + " END";
}

std::string NsysSchema::column(std::string_view table, std::string_view column,
                               std::string_view fallback) const {
  return std::string(has(table, column) ? column : fallback);
}

int64_t NsysSchema::enumId(std::string_view table, std::string_view name, int64_t fallback) const {
  if (!has(table, "id") || !has(table, "name")) return fallback;
  auto st = db_.prepare("SELECT id FROM \"" + std::string(table) +
                        "\" WHERE name = ? AND typeof(id) = 'integer'");
  st.bind(1, name);
  return st.step() ? st.int64(0) : fallback;
}

std::map<std::string, std::string> NsysSchema::pairs(std::string_view table,
                                                     std::string_view nameColumn,
                                                     std::string_view valueColumn) const {
  std::map<std::string, std::string> out;
  if (!has(table, nameColumn) || !has(table, valueColumn)) return out;
  auto st = db_.prepare("SELECT " + std::string(nameColumn) + ", " + std::string(valueColumn) +
                        " FROM \"" + std::string(table) + "\"");
  while (st.step()) out.emplace(st.text(0), st.text(1));  // the first of repeated names wins
  return out;
}

}  // namespace bubblescope::traces::import
