#include "cli/check_input.h"

#include <filesystem>
#include <fstream>

#include "analyzer/check/report_figures.h"
#include "cli/input_kind.h"
#include "traces/import/byte_source.h"
#include "traces/import/detect_input.h"

namespace bubblescope::cli {
namespace {

namespace fs = std::filesystem;
using analysis::CheckInputError;
using traces::import::InputFormat;

std::string decompressedText(const fs::path& file) {
  traces::import::ByteSource source(file);
  std::string text;
  char chunk[64 * 1024];
  while (const size_t n = source.read(chunk, sizeof chunk)) text.append(chunk, n);
  return text;
}

// Whether its first bytes are a gzip or zstd magic number.
bool compressed(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  char magic[4] = {};
  in.read(magic, sizeof magic);
  return traces::import::compressionOf(std::string_view(magic, static_cast<size_t>(in.gcount()))) !=
         traces::import::Compression::None;
}

[[noreturn]] void refuse(const fs::path& file, const std::string& what) {
  throw CheckInputError(file.string() + ": " + what);
}

// bubblescope's outputs with no bubbles to compare, or not as JSON: what each is, and what to
// give check instead.
[[noreturn]] void refuseOwnOutput(const fs::path& file, FileKind kind) {
  const std::string what = ownOutputPhrase(kind);
  switch (kind) {
    case FileKind::PerfettoExport:
      refuse(file, what + ", not a report or a trace of a run; check the run it was exported from");
    case FileKind::HangAnswers:
      refuse(file, what + ", not a report or a trace; 'bubblescope hang " + file.string() +
                       "' reads them");
    case FileKind::HangReport:
      refuse(file, what +
                       ", not the analysis report check compares; write that with 'bubblescope "
                       "analyze RUN --format json'");
    case FileKind::CheckVerdict:
      refuse(file, what + ", not a report or a trace");
    default:  // a report of `analyze` in another format
      refuse(file, what +
                       ", not the JSON one check reads; write that with 'bubblescope analyze RUN "
                       "--format json'");
  }
}

}  // namespace

CheckInput recogniseCheckInput(const std::string& path) {
  const fs::path file(path);
  const FileKind kind = fileKindOf(file);
  switch (kind) {
    case FileKind::Directory:
      return {CheckInput::Kind::Trace, {}, true, InputFormat::Unknown};
    case FileKind::ChromeTrace:
      return {CheckInput::Kind::Trace, {}, false, InputFormat::ChromeTrace};
    case FileKind::AnalysisReport:
    case FileKind::BrokenJson:  // ours, or broken before it said: the report reader names it
      return {CheckInput::Kind::Report, decompressedText(file), false, InputFormat::Unknown};
    case FileKind::OtherJson:
      refuse(file,
             "JSON, but neither a bubblescope report nor a trace (no \"tool\": \"bubblescope\", "
             "no \"traceEvents\"); write a report with 'bubblescope analyze RUN --format json'");
    case FileKind::Sqlite:
    case FileKind::Other:
      break;
    default:
      refuseOwnOutput(file, kind);
  }
  // What detection reads (our traces, an nsys export, a *.sqlite our reader names the problem
  // of), or what it says the file is instead.
  const traces::import::Detection d = traces::import::detectFile(file);
  if (d.format != InputFormat::Unknown) return {CheckInput::Kind::Trace, {}, false, d.format};
  std::error_code ec;
  if (fs::file_size(file, ec) == 0) refuse(file, "an empty file, not a report or a trace");
  if (kind == FileKind::Sqlite || d.nsysReport || compressed(file)) refuse(file, d.why);
  refuse(file, "neither JSON nor SQLite, so not a report or a trace");
}

std::string analysedInputName(const CheckInput& input, const traces::Run& run) {
  if (input.directory) return "run directory";
  if (input.format == InputFormat::ChromeTrace && !run.ranks.empty()) {
    // The dialect is known once the file is read.
    const std::string& source = run.ranks.front().meta.source;
    if (source == "ndtimeline") return "NDTimeline timeline";
    if (source == "chrome-trace") return "Chrome-trace timeline";
  }
  return traces::import::formatName(input.format);
}

}  // namespace bubblescope::cli
