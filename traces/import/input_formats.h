#pragma once
// Every input format bubblescope reads, in one table: its names, how a file is told to be of it
// by content, how it is imported, and how its ranks are numbered when the files do not say.
#include <filesystem>
#include <span>
#include <string_view>

#include "traces/import/imported.h"

namespace bubblescope::traces::sqlite {
class Database;
}

namespace bubblescope::traces::import {

enum class InputFormat {
  Bubblescope,  // our per-rank SQLite trace
  ChromeTrace,  // Chrome-trace JSON: Kineto / PyTorch profiler, NDTimeline, a plain timeline
  Nsys,         // Nsight Systems SQLite export
  Unknown,
};

// What detection has read of a file, for each format's sniff to look at.
struct FileHead {
  sqlite::Database* db = nullptr;  // the file, opened, when it is a SQLite database
  std::string_view text;  // else its first MiB, decompressed, past a byte-order mark and spaces
  bool whole = false;     // the text is all the file holds
  const std::filesystem::path* file = nullptr;  // for a sniff the first MiB cannot settle
};

enum class Container { Sqlite, Text };  // which FileHead a format's sniff reads

// A format's verdict on a file. Maybe: its own unless another format says Yes.
struct Sniff {
  enum Verdict { No, Maybe, Yes } verdict = No;
  const char* notATrace = nullptr;  // for No: what the file is instead, when the format can tell
};

// How ranks are numbered when no file says (in input order, after the files' own order).
struct RankPolicy {
  const char* note;        // says how, when there are several
  bool worldIsRanksFound;  // a rank of unknown world size is of a world of every rank found
};

// `bubblescope import <key>`, for a format that is imported.
struct ImportCommand {
  const char* key;         // "kineto"
  const char* what;        // in the import command's help: "PyTorch profiler / Kineto JSON"
  const char* help;        // the subcommand's help
  const char* inputsHelp;  // its inputs' help
};

struct InputFormatRow {
  InputFormat format;
  const char* name;     // "Kineto JSON", "Nsight Systems export" (formatName)
  const char* phrase;   // in a sentence: "an Nsight Systems export" (formatPhrase)
  const char* plural;   // several of them: "Nsight Systems exports"
  const char* listing;  // among a directory's files: "bubblescope *.sqlite"
  Container container;
  Sniff (*sniff)(const FileHead& head);  // throws sqlite::SqliteError for a damaged database
  // Throws TraceError naming the file; nullptr for our own traces, which are read, not imported.
  // `threads`: how many it may use (0: one per core; a file imported beside others, one).
  ImportedFile (*import)(const std::filesystem::path& file, unsigned threads);
  RankPolicy ranks;
  const ImportCommand* command;  // nullptr: no `bubblescope import` subcommand
};

// In the order detection tries them.
std::span<const InputFormatRow> inputFormats();
// nullptr for Unknown.
const InputFormatRow* findInputFormat(InputFormat f);

const char* formatName(InputFormat f);    // "bubblescope trace", "Kineto JSON", ...; "unknown"
const char* formatPhrase(InputFormat f);  // "a bubblescope trace", ...; "an unknown format"
// Numbering in file name order for a format without a row (Unknown).
const RankPolicy& rankPolicy(InputFormat f);

}  // namespace bubblescope::traces::import
