#include "traces/import/input_format.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>

#include "traces/errors.h"
#include "traces/files/input_path.h"
#include "traces/import/byte_source.h"
#include "traces/sqlite/sqlite_db.h"

namespace bubblescope::traces::import {
namespace fs = std::filesystem;
namespace {

constexpr size_t kSniffBytes = size_t{1} << 20;  // Kineto puts traceEvents after small metadata

bool isSpace(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

Detection detectSqlite(const fs::path& file) {
  try {
    sqlite::Database db(file, sqlite::Database::Mode::ReadOnly);
    if (db.hasTable("meta")) {
      auto st = db.prepare("SELECT value FROM meta WHERE key = 'format'");
      if (st.step() && st.text(0) == "bubblescope-trace") return {InputFormat::Bubblescope, {}};
    }
    auto st = db.prepare(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND (name = 'NVTX_EVENTS' OR "
        "name LIKE 'CUPTI_ACTIVITY_KIND_%' OR name = 'META_DATA_EXPORT' OR name = "
        "'TARGET_INFO_SESSION_START_TIME')");
    if (st.step() && st.int64(0) > 0) return {InputFormat::Nsys, {}};
    if (db.hasTable("meta")) return {InputFormat::Bubblescope, {}};  // ours, damaged: say so later
    return {InputFormat::Unknown,
            "a SQLite database, but neither a bubblescope trace nor an Nsight Systems export"};
  } catch (const sqlite::SqliteError& e) {
    // Damaged: if it was ours, our reader says exactly how (truncated, corrupt).
    return {InputFormat::Bubblescope, std::string("a damaged SQLite database (") + e.what() + ")"};
  }
}

}  // namespace

const char* formatName(InputFormat f) {
  switch (f) {
    case InputFormat::Bubblescope:
      return "bubblescope trace";
    case InputFormat::ChromeTrace:
      return "Kineto JSON";
    case InputFormat::Nsys:
      return "Nsight Systems export";
    case InputFormat::Unknown:
      break;
  }
  return "unknown";
}

namespace {

Detection sniff(const fs::path& file) {
  checkInputFile(file);
  std::error_code ec;
  if (fs::file_size(file, ec) == 0) return {InputFormat::Unknown, "empty file, not a trace"};
  char head[16] = {};
  {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw TraceError(file, "cannot be opened for reading");
    in.read(head, sizeof head);
    if (in.gcount() == 16 && std::memcmp(head, "SQLite format 3", 16) == 0) {
      return detectSqlite(file);
    }
  }
  const std::string prefix = readPrefix(file, kSniffBytes);
  size_t i = 0;
  if (prefix.compare(0, 3, "\xEF\xBB\xBF") == 0) i = 3;
  while (i < prefix.size() && isSpace(prefix[i])) ++i;
  const bool compressed = compressionOf(std::string_view(head, 4)) != Compression::None;
  if (i < prefix.size() && prefix[i] == '[') return {InputFormat::ChromeTrace, {}};
  if (i < prefix.size() && prefix[i] == '{') {
    if (prefix.find("\"traceEvents\"") != std::string::npos) return {InputFormat::ChromeTrace, {}};
    if (prefix.size() < kSniffBytes) {
      return {InputFormat::Unknown, "JSON, but not a trace: it has no \"traceEvents\" array"};
    }
    return {InputFormat::ChromeTrace, {}};  // a huge header: the import will tell
  }
  if (compressed && prefix.empty()) {
    return {InputFormat::Unknown, "compressed data that does not decompress (truncated?)"};
  }
  return {InputFormat::Unknown, compressed ? "compressed, but not a JSON trace inside"
                                           : "neither JSON nor SQLite, so not a trace"};
}

}  // namespace

const char* formatPhrase(InputFormat f) {
  switch (f) {
    case InputFormat::Bubblescope:
      return "a bubblescope trace";
    case InputFormat::ChromeTrace:
      return "Kineto JSON";
    case InputFormat::Nsys:
      return "an Nsight Systems export";
    case InputFormat::Unknown:
      break;
  }
  return "an unknown format";
}

Detection detectFile(const fs::path& file) {
  Detection d = sniff(file);
  // A *.sqlite file that is not recognisably anything: our reader names its problem precisely
  // (empty, truncated, not SQLite), as it always has for run directories.
  if (d.format == InputFormat::Unknown && file.extension() == ".sqlite") {
    d.format = InputFormat::Bubblescope;
  }
  return d;
}

bool naturalLess(const std::string& a, const std::string& b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit(static_cast<unsigned char>(a[i])) &&
        std::isdigit(static_cast<unsigned char>(b[j]))) {
      size_t ie = i, je = j;
      while (ie < a.size() && std::isdigit(static_cast<unsigned char>(a[ie]))) ++ie;
      while (je < b.size() && std::isdigit(static_cast<unsigned char>(b[je]))) ++je;
      std::string_view x(a.data() + i, ie - i), y(b.data() + j, je - j);
      while (x.size() > 1 && x.front() == '0') x.remove_prefix(1);
      while (y.size() > 1 && y.front() == '0') y.remove_prefix(1);
      if (x.size() != y.size()) return x.size() < y.size();
      if (x != y) return x < y;
      i = ie, j = je;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i, ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

DirectoryContents scanDirectory(const fs::path& dir) {
  std::error_code ec;
  std::vector<fs::path> entries;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.is_regular_file(ec)) entries.push_back(entry.path());
  }
  if (ec) throw TraceError(dir, "cannot list the directory: " + ec.message());
  std::sort(entries.begin(), entries.end(), [](const fs::path& a, const fs::path& b) {
    return naturalLess(a.filename().string(), b.filename().string());
  });
  DirectoryContents out;
  std::vector<fs::path> byFormat[3];
  for (const fs::path& p : entries) {
    // Sidecar files of a SQLite database are not traces of their own.
    const std::string name = p.filename().string();
    if (name.ends_with("-wal") || name.ends_with("-shm") || name.ends_with("-journal")) continue;
    Detection d;
    try {
      d = detectFile(p);
    } catch (const TraceError&) {
      continue;  // vanished or unreadable: not ours to judge here
    }
    if (d.format != InputFormat::Unknown) byFormat[static_cast<int>(d.format)].push_back(p);
  }
  int formats = 0;
  for (int f = 0; f < 3; ++f) {
    if (byFormat[f].empty()) continue;
    ++formats;
    out.format = static_cast<InputFormat>(f);
    out.files = byFormat[f];
  }
  if (formats == 0) {
    throw TraceError(dir, entries.empty() ? "an empty directory, so no traces to read"
                                          : "no traces here (no bubblescope *.sqlite, Kineto "
                                            "JSON or Nsight Systems export among its " +
                                                std::to_string(entries.size()) + " files)");
  }
  if (formats > 1) {
    // Our own traces win: a run directory may hold the raw recordings it was imported from.
    if (!byFormat[0].empty()) {
      out.format = InputFormat::Bubblescope;
      out.files = byFormat[0];
      return out;
    }
    throw TraceError(dir,
                     "holds both Kineto JSON and Nsight Systems exports; give each its own "
                     "directory");
  }
  return out;
}

}  // namespace bubblescope::traces::import
