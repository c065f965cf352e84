// libFuzzer target: any bytes as a bubblescope trace file (the SQLite image opened from memory
// with sqlite3_deserialize, read by the same reader as a file). Bad input must end in a
// TraceError, never a crash, a sanitizer report, a hang or an allocation beyond the limit.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "traces/errors.h"
#include "traces/sqlite/sqlite_db.h"
#include "traces/sqlite/trace_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace bubblescope::traces;
  try {
    sqlite::Database db =
        sqlite::Database::fromBytes(std::string_view(reinterpret_cast<const char*>(data), size));
    const RankTrace t = readRankTrace(db, "fuzz.sqlite");
    if (t.eventCount() > (size_t{1} << 40)) __builtin_trap();  // keep the result alive
  } catch (const TraceError&) {
    // The one way bad input may end.
  } catch (const sqlite::SqliteError&) {
    // Only from fromBytes, before the reader: not an image SQLite takes.
  }
  return 0;
}
