#pragma once
// Integer columns are read as integers or refused: SQLite's int64() reads NULL, text and reals as
// 0 or a truncation without a word (an nsys start = 'abc' became the capture's start, 1.5 became
// 1). Our trace reader and the nsys importer both check through here; messages name the file,
// the table and the column.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string_view>

#include "traces/sqlite/sqlite_db.h"

namespace bubblescope::traces::sqlite {

// Every column from `first` up to `end` (all when -1) of the row `st` stands on holds an integer;
// TraceError "corrupt: TABLE.COLUMN holds text, not an integer" otherwise.
void requireIntegers(const Statement& st, const std::filesystem::path& file, std::string_view table,
                     int first = 0, int end = -1);

// Column `column` of the row holds an integer or NULL (nullopt).
std::optional<int64_t> integerOrNull(const Statement& st, int column,
                                     const std::filesystem::path& file, std::string_view table);

}  // namespace bubblescope::traces::sqlite
