// libFuzzer target: any bytes as an Nsight Systems SQLite export (opened from memory with
// sqlite3_deserialize, imported as a file is). Bad input must end in a TraceError.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "traces/errors.h"
#include "traces/import/nsys/nsys_import.h"
#include "traces/sqlite/sqlite_db.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace bubblescope::traces;
  try {
    sqlite::Database db =
        sqlite::Database::fromBytes(std::string_view(reinterpret_cast<const char*>(data), size));
    const import::ImportedFile f = import::importNsysDatabase(std::move(db), "fuzz.sqlite");
    for (const RankTrace& t : f.ranks) {
      if (t.eventCount() > (size_t{1} << 40)) __builtin_trap();  // keep the result alive
    }
  } catch (const TraceError&) {
    // The one way bad input may end.
  } catch (const sqlite::SqliteError&) {
    // Only from fromBytes: not an image SQLite takes.
  }
  return 0;
}
