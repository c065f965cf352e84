#pragma once
// Reads one rank's trace file into the in-memory model. Every problem with the file (not SQLite,
// not ours, a newer schema, truncated, corrupt) is a TraceError naming the file and the problem.
#include <filesystem>

#include "traces/model/trace.h"

namespace bubblescope::traces {
namespace sqlite {
class Database;
}

// The whole trace, every table sorted by start.
RankTrace readRankTrace(const std::filesystem::path& file);

// The same from a database already open (the fuzzer reads images from memory); `file` is what
// messages call it.
RankTrace readRankTrace(sqlite::Database& db, const std::filesystem::path& file);

// Only the metadata (fast: no event tables are read).
RankMeta readRankMeta(const std::filesystem::path& file);

}  // namespace bubblescope::traces
