#include "cli/input_kind.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <streambuf>
#include <string>
#include <string_view>

#include "cli/live_answers.h"
#include "traces/files/input_path.h"
#include "traces/import/byte_source.h"

namespace bubblescope::cli {
namespace {

namespace fs = std::filesystem;

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

// A JSON object: a trace (Kineto), or something bubblescope wrote, each as its writer marks it:
// the Perfetto exporter, `hang --save`, `hang --format json`, `analyze --format json`.
FileKind objectKind(const fs::path& file) {
  DecompressedBuffer buffer(file);
  std::istream in(&buffer);
  TopLevel top;
  top.whole = nlohmann::json::sax_parse(in, &top);
  if (top.generator == "bubblescope") return FileKind::PerfettoExport;
  if (top.traceEvents) return FileKind::ChromeTrace;
  if (top.kind == kAnswersKind) return FileKind::HangAnswers;
  if (top.tool == "bubblescope") {
    return top.report == "hang" ? FileKind::HangReport : FileKind::AnalysisReport;
  }
  return top.whole ? FileKind::OtherJson : FileKind::BrokenJson;
}

// The file's first bytes as they are (not decompressed).
std::string rawHead(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  char bytes[16] = {};
  in.read(bytes, sizeof bytes);
  return std::string(bytes, static_cast<size_t>(in.gcount()));
}

// bubblescope's outputs that are not JSON, told by how they start.
struct OwnOutput {
  std::string_view marker;
  bool atStart;  // else anywhere in the head
  FileKind kind;
};
constexpr OwnOutput kOwnOutputs[] = {
    {"bubblescope analysis of ", true, FileKind::TextReport},
    {"## bubblescope", true, FileKind::MarkdownReport},
    {"<title>bubblescope", false, FileKind::HtmlReport},
    {"<testsuites name=\"bubblescope\"", false, FileKind::JunitReport},
    {"<testsuites name=\"bubblescope check\"", false, FileKind::CheckVerdict},
};

}  // namespace

FileKind fileKindOf(const fs::path& file) {
  if (traces::checkInputPath(file) == traces::InputKind::Directory) return FileKind::Directory;
  if (rawHead(file).starts_with(std::string_view("SQLite format 3\0", 16))) {
    return FileKind::Sqlite;
  }
  const std::string head = traces::import::readPrefix(file, kHeadBytes);
  std::string_view text(head);
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  while (!text.empty() && std::string_view(" \t\r\n").find(text.front()) != std::string::npos) {
    text.remove_prefix(1);
  }
  if (text.starts_with('{')) return objectKind(file);
  if (text.starts_with('[')) return FileKind::ChromeTrace;
  for (const OwnOutput& o : kOwnOutputs) {
    if (o.atStart ? text.starts_with(o.marker) : text.find(o.marker) != std::string_view::npos) {
      return o.kind;
    }
  }
  return FileKind::Other;
}

const char* ownOutputPhrase(FileKind kind) {
  switch (kind) {
    case FileKind::AnalysisReport:
      return "a bubblescope analysis report";
    case FileKind::HangAnswers:
      return "saved hang answers ('bubblescope hang --save')";
    case FileKind::HangReport:
      return "a hang report ('bubblescope hang --format json')";
    case FileKind::PerfettoExport:
      return "a Perfetto trace bubblescope exported ('bubblescope export perfetto')";
    case FileKind::TextReport:
      return "a text report";
    case FileKind::MarkdownReport:
      return "a Markdown report";
    case FileKind::HtmlReport:
      return "an HTML report";
    case FileKind::JunitReport:
      return "a JUnit report";
    case FileKind::CheckVerdict:
      return "the JUnit verdict of a 'bubblescope check'";
    default:
      return nullptr;
  }
}

}  // namespace bubblescope::cli
