#include "traces/sqlite/integer_columns.h"

#include <string>

#include "traces/errors.h"

namespace bubblescope::traces::sqlite {
namespace {

[[noreturn]] void failNotInteger(const Statement& st, int column, const std::filesystem::path& file,
                                 std::string_view table) {
  const int type = st.type(column);
  const char* what = type == SQLITE_NULL    ? "NULL"
                     : type == SQLITE_FLOAT ? "a real number"
                     : type == SQLITE_TEXT  ? "text"
                                            : "a blob";
  throw TraceError(file, "corrupt: " + std::string(table) + "." +
                             std::string(st.columnName(column)) + " holds " + what +
                             ", not an integer");
}

}  // namespace

void requireIntegers(const Statement& st, const std::filesystem::path& file, std::string_view table,
                     int first, int end) {
  if (end < 0) end = st.columns();
  for (int c = first; c < end; ++c) {
    if (st.type(c) != SQLITE_INTEGER) failNotInteger(st, c, file, table);
  }
}

std::optional<int64_t> integerOrNull(const Statement& st, int column,
                                     const std::filesystem::path& file, std::string_view table) {
  const int type = st.type(column);
  if (type == SQLITE_NULL) return std::nullopt;
  if (type != SQLITE_INTEGER) failNotInteger(st, column, file, table);
  return st.int64(column);
}

}  // namespace bubblescope::traces::sqlite
