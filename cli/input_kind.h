#pragma once
// What a path given to a command is, told by content: a directory, a trace, or one of
// bubblescope's own outputs that holds no trace (a report, saved hang answers, a Perfetto export),
// so that `check` and the commands that read traces each name such a file for what it is.
#include <filesystem>

namespace bubblescope::cli {

enum class FileKind {
  Directory,
  Sqlite,          // a SQLite database: detection tells our traces from an nsys export
  ChromeTrace,     // JSON with "traceEvents", or an array of events
  AnalysisReport,  // a JSON report of `analyze`: "tool": "bubblescope" and none of the below
  HangAnswers,     // `hang --save`
  HangReport,      // `hang --format json`
  PerfettoExport,  // `export perfetto`
  TextReport,      // `analyze` in its other formats
  MarkdownReport,
  HtmlReport,
  JunitReport,
  CheckVerdict,  // `check --junit`
  BrokenJson,    // a JSON object that breaks before it says what it is
  OtherJson,     // a whole JSON object that is none of the above
  Other,         // anything else: detection says what it is (empty, compressed, a .nsys-rep)
};

// Reads no more of a file than it takes to tell: its first 4 KiB (decompressed), and a JSON
// object's top level up to "traceEvents". Throws TraceError naming the path: missing,
// unreadable, a FIFO or a device.
FileKind fileKindOf(const std::filesystem::path& path);

// What one of bubblescope's own outputs is, for a message: "saved hang answers ('bubblescope hang
// --save')", "a Markdown report"; nullptr for a kind that is not one.
const char* ownOutputPhrase(FileKind kind);

}  // namespace bubblescope::cli
