#include "traces/import/detect_input.h"

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

// Nsight Systems' own reports: *.nsys-rep (*.qdrep from older versions).
bool isNsysReportName(const fs::path& file) {
  std::string ext = file.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext == ".nsys-rep" || ext == ".qdrep";
}

// "A", "A or B", "A, B or C" (`last` joins the last two).
std::string joined(const std::vector<const char*>& names, const char* last) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? std::string(" ") + last + " " : std::string(", ");
    out += names[i];
  }
  return out;
}

// The first format of `container` that says Yes, else the first that says Maybe; else Unknown,
// with what the first format that could tell says the file is instead.
Detection recognise(Container container, const FileHead& head) {
  const InputFormatRow* maybe = nullptr;
  const char* notATrace = nullptr;
  for (const InputFormatRow& row : inputFormats()) {
    if (row.container != container) continue;
    const Sniff s = row.sniff(head);
    if (s.verdict == Sniff::Yes) return {row.format, {}};
    if (s.verdict == Sniff::Maybe && !maybe) maybe = &row;
    if (s.verdict == Sniff::No && !notATrace) notATrace = s.notATrace;
  }
  if (maybe) return {maybe->format, {}};
  return {InputFormat::Unknown, notATrace ? notATrace : ""};
}

Detection detectSqlite(const fs::path& file) {
  try {
    sqlite::Database db(file, sqlite::Database::Mode::ReadOnly);
    FileHead head;
    head.db = &db;
    Detection d = recognise(Container::Sqlite, head);
    if (d.format == InputFormat::Unknown && d.why.empty()) {
      std::vector<const char*> formats;
      for (const InputFormatRow& row : inputFormats()) {
        if (row.container == Container::Sqlite) formats.push_back(row.phrase);
      }
      d.why = "a SQLite database, but neither " + joined(formats, "nor");
    }
    return d;
  } catch (const sqlite::SqliteError& e) {
    // Damaged: if it was ours, our reader says exactly how (truncated, corrupt).
    return {InputFormat::Bubblescope, std::string("a damaged SQLite database (") + e.what() + ")"};
  }
}

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
  FileHead start;
  start.text = std::string_view(prefix).substr(i);
  start.whole = prefix.size() < kSniffBytes;
  start.file = &file;
  Detection d = recognise(Container::Text, start);
  if (d.format != InputFormat::Unknown || !d.why.empty()) return d;
  // By its name, once its content is nothing we read: the report's binary layout is not
  // documented as its SQLite export's schema is.
  if (isNsysReportName(file)) {
    return {InputFormat::Unknown,
            "an Nsight Systems report (" + file.extension().string() +
                "), not its SQLite export; 'nsys export --type sqlite " + file.string() +
                "' writes the export bubblescope reads",
            true};
  }
  const bool compressed = compressionOf(std::string_view(head, 4)) != Compression::None;
  if (compressed && prefix.empty()) {
    return {InputFormat::Unknown, "compressed data that does not decompress (truncated?)"};
  }
  return {InputFormat::Unknown, compressed ? "compressed, but not a JSON trace inside"
                                           : "neither JSON nor SQLite, so not a trace"};
}

}  // namespace

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
  const std::span<const InputFormatRow> formats = inputFormats();
  std::vector<std::vector<fs::path>> byFormat(formats.size());  // by row of the table
  size_t nsysReports = 0;
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
    const InputFormatRow* row = findInputFormat(d.format);
    if (row) byFormat[static_cast<size_t>(row - formats.data())].push_back(p);
    if (d.nsysReport) ++nsysReports;
  }
  std::vector<size_t> found;  // rows with files
  for (size_t f = 0; f < formats.size(); ++f) {
    if (!byFormat[f].empty()) found.push_back(f);
  }
  if (found.empty()) {
    std::vector<const char*> listing;
    for (const InputFormatRow& row : formats) listing.push_back(row.listing);
    if (entries.empty()) throw TraceError(dir, "an empty directory, so no traces to read");
    std::string why = "no traces here (no " + joined(listing, "or") + " among its " +
                      std::to_string(entries.size()) + " files)";
    if (nsysReports > 0) {
      why += nsysReports == 1
                 ? ", but an Nsight Systems report (.nsys-rep)"
                 : ", but " + std::to_string(nsysReports) + " Nsight Systems reports (.nsys-rep)";
      why += ": 'nsys export --type sqlite FILE' writes the export of one, which bubblescope reads";
    }
    throw TraceError(dir, why);
  }
  size_t chosen = found.front();
  if (found.size() > 1) {
    // Our own traces win: a run directory may hold the raw recordings it was imported from.
    const auto ours = std::find_if(found.begin(), found.end(), [&](size_t f) {
      return formats[f].format == InputFormat::Bubblescope;
    });
    if (ours == found.end()) {
      throw TraceError(dir, std::string("holds both ") + formats[found[0]].plural + " and " +
                                formats[found[1]].plural + "; give each its own directory");
    }
    chosen = *ours;
  }
  return {formats[chosen].format, std::move(byFormat[chosen])};
}

}  // namespace bubblescope::traces::import
