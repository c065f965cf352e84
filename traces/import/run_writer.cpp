#include "traces/import/run_writer.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <mutex>

#include "traces/errors.h"
#include "traces/files/output_file.h"
#include "traces/sqlite/sqlite_db.h"
#include "traces/sqlite/trace_writer.h"

namespace bubblescope::traces::import {
namespace fs = std::filesystem;
namespace {

struct Written {
  fs::path temp;
  RankSummary summary;
};

// Ranks are numbered only once every file is read: the files already written get their final
// rank and world size in their meta table.
void updateMeta(const fs::path& file, int rank, int worldSize) {
  sqlite::Database db(file, sqlite::Database::Mode::CreateNew);
  auto st = db.prepare("UPDATE meta SET value = ? WHERE key = ?");
  for (auto [key, value] : {std::pair{"rank", rank}, std::pair{"world_size", worldSize}}) {
    st.bind(1, std::to_string(value));
    st.bind(2, key);
    st.run();
  }
}

}  // namespace

std::string rankFileName(int rank) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "rank-%05d.sqlite", rank);
  return buf;
}

WrittenRun importToDirectory(const Inputs& inputs, const fs::path& dir,
                             const LoadOptions& options) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw TraceError(dir, "cannot be created: " + ec.message());
  std::mutex mutex;
  std::map<size_t, Written> written;
  WrittenRun out;
  try {
    out.files = importEach(inputs, options, [&](size_t index, RankTrace&& t) {
      // This process's own temporary name: two imports into one directory must not write into
      // each other's files (each then publishes whole files, the last one's kept).
      const fs::path temp = dir / (".importing-" + std::to_string(::getpid()) + "-" +
                                   std::to_string(index) + ".sqlite");
      try {
        writeRankTrace(t, temp);
      } catch (...) {
        std::error_code ignored;
        fs::remove(temp, ignored);  // half a file (a full disk): not in `written` to be cleaned
        throw;
      }
      const RankSummary s = summarize(t);
      t = RankTrace{};  // the model goes as soon as it is on disk
      std::lock_guard lock(mutex);
      written.emplace(index, Written{temp, s});
    });
    std::vector<RankClaim> claims;
    for (const auto& [index, w] : written) {
      claims.push_back({w.summary.file, w.summary.rank, w.summary.worldSize});
    }
    numberRanks(claims, inputs.format, out.notes);
    size_t i = 0;
    for (auto& [index, w] : written) {
      RankSummary& s = w.summary;
      if (claims[i].rank != s.rank || claims[i].worldSize != s.worldSize) {
        updateMeta(w.temp, claims[i].rank, claims[i].worldSize);
        s.rank = claims[i].rank;
        s.worldSize = claims[i].worldSize;
      }
      ++i;
    }
  } catch (...) {
    for (const auto& [index, w] : written) fs::remove(w.temp, ec);
    throw;
  }
  for (auto& [index, w] : written) {
    const fs::path file = dir / rankFileName(w.summary.rank);
    publishOutputFile(w.temp, file);
    out.ranks.push_back(w.summary);
  }
  std::sort(out.ranks.begin(), out.ranks.end(),
            [](const RankSummary& a, const RankSummary& b) { return a.rank < b.rank; });
  return out;
}

}  // namespace bubblescope::traces::import
