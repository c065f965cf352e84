#include "traces/import/input_formats.h"

#include "traces/errors.h"
#include "traces/import/byte_source.h"
#include "traces/import/chrome_json/chrome_trace_import.h"
#include "traces/import/chrome_json/trace_event_stream.h"
#include "traces/import/nsys/nsys_import.h"
#include "traces/sqlite/sqlite_db.h"

namespace bubblescope::traces::import {
namespace {

constexpr const char* kNoTraceEvents = "JSON, but not a trace: it has no \"traceEvents\" array";

// Ours when the meta table says so; a meta table that does not is ours damaged, unless another
// format claims the file (our reader then says what is wrong).
Sniff sniffBubblescope(const FileHead& head) {
  if (!head.db->hasTable("meta")) return {};
  auto st = head.db->prepare("SELECT value FROM meta WHERE key = 'format'");
  if (st.step() && st.text(0) == "bubblescope-trace") return {Sniff::Yes};
  return {Sniff::Maybe};
}

// Whether a JSON object has "traceEvents", read on from its start until the key or the object's
// end: a trace with a header over a MiB, or a large JSON file of another kind (a report).
Sniff readOnForTraceEvents(const std::filesystem::path& file) {
  struct Probe : TraceEventSink {
    bool events = false, ended = false;
    void topLevel(std::string_view, std::string_view, size_t) override {}
    void eventsBegin(bool) override { events = true; }
    void event(std::string_view, size_t) override {}
    bool satisfied() const override { return events; }
    void objectEnd() override { ended = true; }
  } probe;
  try {
    ByteSource source(file);
    streamTraceEvents(source, probe);
  } catch (const TraceError&) {
    // Broken before the key: the import names the problem.
  }
  if (probe.events) return {Sniff::Yes};
  return probe.ended ? Sniff{Sniff::No, kNoTraceEvents} : Sniff{Sniff::Maybe};
}

// An array of events, or an object with "traceEvents" (Kineto puts it after small metadata).
Sniff sniffChromeTrace(const FileHead& head) {
  if (head.text.starts_with('[')) return {Sniff::Yes};
  if (!head.text.starts_with('{')) return {};
  if (head.text.find("\"traceEvents\"") != std::string_view::npos) return {Sniff::Yes};
  if (head.whole) return {Sniff::No, kNoTraceEvents};
  return head.file ? readOnForTraceEvents(*head.file) : Sniff{Sniff::Maybe};
}

// Any of the tables nsys export writes.
Sniff sniffNsys(const FileHead& head) {
  auto st = head.db->prepare(
      "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND (name = 'NVTX_EVENTS' OR "
      "name LIKE 'CUPTI_ACTIVITY_KIND_%' OR name = 'META_DATA_EXPORT' OR name = "
      "'TARGET_INFO_SESSION_START_TIME')");
  return {st.step() && st.int64(0) > 0 ? Sniff::Yes : Sniff::No};
}

constexpr RankPolicy kFileNameOrder = {
    "no rank ids in the traces: ranks numbered in file name order", false};

constexpr ImportCommand kKinetoCommand = {
    "kineto", "PyTorch profiler / Kineto JSON",
    "PyTorch profiler (Kineto) JSON, plain or .gz, one file per rank, or a Chrome-trace timeline",
    "Trace files, or a directory of them"};

constexpr ImportCommand kNsysCommand = {
    "nsys", "Nsight Systems SQLite", "Nsight Systems SQLite exports ('nsys export --type sqlite')",
    "Export files: one per rank, or one with every process"};

constexpr InputFormatRow kInputFormats[] = {
    {
        .format = InputFormat::Bubblescope,
        .name = "bubblescope trace",
        .phrase = "a bubblescope trace",
        .plural = "bubblescope traces",
        .listing = "bubblescope *.sqlite",
        .container = Container::Sqlite,
        .sniff = sniffBubblescope,
        .import = nullptr,
        .ranks = kFileNameOrder,
        .command = nullptr,
    },
    {
        .format = InputFormat::ChromeTrace,
        .name = "Kineto JSON",
        .phrase = "Kineto JSON",
        .plural = "Kineto JSON",
        .listing = "Kineto JSON",
        .container = Container::Text,
        .sniff = sniffChromeTrace,
        .import = importChromeTraceFile,
        .ranks = kFileNameOrder,
        .command = &kKinetoCommand,
    },
    {
        .format = InputFormat::Nsys,
        .name = "Nsight Systems export",
        .phrase = "an Nsight Systems export",
        .plural = "Nsight Systems exports",
        .listing = "Nsight Systems export",
        .container = Container::Sqlite,
        .sniff = sniffNsys,
        .import = [](const std::filesystem::path& f, unsigned) { return importNsysFile(f); },
        .ranks =
            {"no rank ids in the exports: ranks numbered by GPU, then process id, file by file",
             true},
        .command = &kNsysCommand,
    },
};

}  // namespace

std::span<const InputFormatRow> inputFormats() {
  return kInputFormats;
}

const InputFormatRow* findInputFormat(InputFormat f) {
  for (const InputFormatRow& row : kInputFormats) {
    if (row.format == f) return &row;
  }
  return nullptr;
}

const char* formatName(InputFormat f) {
  const InputFormatRow* row = findInputFormat(f);
  return row ? row->name : "unknown";
}

const char* formatPhrase(InputFormat f) {
  const InputFormatRow* row = findInputFormat(f);
  return row ? row->phrase : "an unknown format";
}

const RankPolicy& rankPolicy(InputFormat f) {
  const InputFormatRow* row = findInputFormat(f);
  return row ? row->ranks : kFileNameOrder;
}

}  // namespace bubblescope::traces::import
