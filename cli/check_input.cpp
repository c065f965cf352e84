#include "cli/check_input.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <streambuf>
#include <string_view>

#include "analyzer/check/report_figures.h"
#include "cli/live_answers.h"
#include "traces/files/input_path.h"
#include "traces/import/byte_source.h"
#include "traces/import/detect_input.h"

namespace bubblescope::cli {
namespace {

namespace fs = std::filesystem;
using analysis::CheckInputError;
using traces::import::InputFormat;

constexpr size_t kHeadBytes = 4096;  // enough to see past a byte-order mark and blanks

// A file's decompressed bytes as a stream buffer, for nlohmann's SAX parser.
class DecompressedBuffer : public std::streambuf {
 public:
  explicit DecompressedBuffer(const fs::path& file) : source_(file) {}

 protected:
  int_type underflow() override {
    const size_t n = source_.read(buffer_, sizeof buffer_);
    if (n == 0) return traits_type::eof();
    setg(buffer_, buffer_, buffer_ + n);
    return traits_type::to_int_type(buffer_[0]);
  }

 private:
  traces::import::ByteSource source_;
  char buffer_[64 * 1024];
};

// What a JSON object says it is at its top level: "tool", "kind", "report", otherData.generator.
// Reading stops at "traceEvents" (a trace's events follow, gigabytes perhaps) or a syntax error.
struct TopLevel : nlohmann::json::json_sax_t {
  std::string tool, kind, report, generator;
  bool traceEvents = false;
  bool whole = false;  // read to its end without an error

  bool key(string_t& k) override {
    if (depth_ == 1) {
      key_ = k;
      traceEvents = k == "traceEvents";
      return !traceEvents;
    }
    if (depth_ == 2) innerKey_ = k;
    return true;
  }
  bool string(string_t& s) override {
    if (depth_ == 1 && key_ == "tool") tool = s;
    if (depth_ == 1 && key_ == "kind") kind = s;
    if (depth_ == 1 && key_ == "report") report = s;
    if (depth_ == 2 && key_ == "otherData" && innerKey_ == "generator") generator = s;
    return true;
  }
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return open(); }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(); }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  bool open() {
    ++depth_;
    innerKey_.clear();
    return true;
  }
  bool close() {
    --depth_;
    return true;
  }
  int depth_ = 0;
  std::string key_, innerKey_;
};

TopLevel topLevelOf(const fs::path& file) {
  DecompressedBuffer buffer(file);
  std::istream in(&buffer);
  TopLevel probe;
  probe.whole = nlohmann::json::sax_parse(in, &probe);
  return probe;
}

std::string decompressedText(const fs::path& file) {
  traces::import::ByteSource source(file);
  std::string text;
  char chunk[64 * 1024];
  while (const size_t n = source.read(chunk, sizeof chunk)) text.append(chunk, n);
  return text;
}

// The file's first bytes as they are (not decompressed).
std::string rawHead(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  char bytes[16] = {};
  in.read(bytes, sizeof bytes);
  return std::string(bytes, static_cast<size_t>(in.gcount()));
}

[[noreturn]] void refuse(const fs::path& file, const std::string& what) {
  throw CheckInputError(file.string() + ": " + what);
}

// A JSON object: a report, a Chrome-trace object (Kineto), or something bubblescope wrote that
// has no bubbles in it.
CheckInput recogniseObject(const fs::path& file) {
  const TopLevel top = topLevelOf(file);
  // Each as its writer marks it: the Perfetto exporter, `hang --save`, `hang --format json`.
  if (top.generator == "bubblescope") {
    refuse(file,
           "a Perfetto trace bubblescope exported ('bubblescope export perfetto'), not a report "
           "or a trace of a run; check the run it was exported from");
  }
  if (top.traceEvents) return {CheckInput::Kind::Trace, {}, false, InputFormat::ChromeTrace};
  if (top.kind == kAnswersKind) {
    refuse(file,
           "saved hang answers ('bubblescope hang --save'), not a report or a trace; "
           "'bubblescope hang " +
               file.string() + "' reads them");
  }
  if (top.tool == "bubblescope" && top.report == "hang") {
    refuse(file,
           "a hang report ('bubblescope hang --format json'), not the analysis report check "
           "compares; write that with 'bubblescope analyze RUN --format json'");
  }
  // Ours, or broken before it said what it is: the report reader names what is wrong.
  if (top.tool == "bubblescope" || !top.whole) {
    return {CheckInput::Kind::Report, decompressedText(file), false, InputFormat::Unknown};
  }
  refuse(file,
         "JSON, but neither a bubblescope report nor a trace (no \"tool\": \"bubblescope\", no "
         "\"traceEvents\"); write a report with 'bubblescope analyze RUN --format json'");
}

// bubblescope's other outputs, told by how they start: the message says which, and for a report
// of `analyze` in another format, what to write instead.
struct OwnOutput {
  std::string_view marker;
  bool atStart;  // else anywhere in the head
  const char* what;
  bool otherReportFormat;
};
constexpr OwnOutput kOwnOutputs[] = {
    {"bubblescope analysis of ", true, "a text report", true},
    {"## bubblescope", true, "a Markdown report", true},
    {"<title>bubblescope", false, "an HTML report", true},
    {"<testsuites name=\"bubblescope\"", false, "a JUnit report", true},
    {"<testsuites name=\"bubblescope check\"", false,
     "the JUnit verdict of a 'bubblescope check', not a report or a trace", false},
};

}  // namespace

CheckInput recogniseCheckInput(const std::string& path) {
  const fs::path file(path);
  if (traces::checkInputPath(file) == traces::InputKind::Directory) {
    return {CheckInput::Kind::Trace, {}, true, InputFormat::Unknown};
  }
  const traces::import::Detection d = traces::import::detectFile(file);
  if (d.format == InputFormat::Bubblescope || d.format == InputFormat::Nsys) {
    return {CheckInput::Kind::Trace, {}, false, d.format};
  }
  const std::string head = traces::import::readPrefix(file, kHeadBytes);
  std::string_view text(head);
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  while (!text.empty() && std::string_view(" \t\r\n").find(text.front()) != std::string::npos) {
    text.remove_prefix(1);
  }
  if (text.starts_with('{')) return recogniseObject(file);
  if (text.starts_with('[') || d.format == InputFormat::ChromeTrace) {
    return {CheckInput::Kind::Trace, {}, false, InputFormat::ChromeTrace};
  }
  for (const OwnOutput& o : kOwnOutputs) {
    if (o.atStart ? text.starts_with(o.marker) : text.find(o.marker) != std::string_view::npos) {
      refuse(file, std::string(o.what) + (o.otherReportFormat
                                              ? ", not the JSON one check reads; write that with "
                                                "'bubblescope analyze RUN --format json'"
                                              : ""));
    }
  }
  std::error_code ec;
  if (fs::file_size(file, ec) == 0) refuse(file, "an empty file, not a report or a trace");
  // What detection can say it is instead: a SQLite database of neither kind, compressed data
  // that is not JSON.
  const std::string raw = rawHead(file);
  if (raw.starts_with(std::string_view("SQLite format 3\0", 16)) ||
      traces::import::compressionOf(raw) != traces::import::Compression::None) {
    refuse(file, d.why);
  }
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
