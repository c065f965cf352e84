// A Chrome-trace file's events parsed on a second thread, one batch ahead of the builder
// (streamParsedEvents), import to the same ranks, every field of them, with the same skips and
// notes, as when parsed in line; and the same error, the first in file order, where the file or a
// builder refuses it. Over every generated Kineto case, Megatron timelines of many batches with
// their metadata first, last or among the events (plain and gzip), and the public traces.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "tests/support/temp_dir.h"
#include "tests/tracegen/cases.h"
#include "tests/tracegen/megatron_execution.h"
#include "tests/tracegen/ndtimeline_writer.h"
#include "tests/tracegen/stack_analysis.h"
#include "tests/traces/import/shared_data.h"
#include "traces/errors.h"
#include "traces/import/chrome_json/chrome_trace_import.h"
#include "traces/model/trace_codec.h"

namespace bubblescope::tracegen {
namespace {

using traces::import::ByteSource;
using traces::import::ImportedFile;

// Every byte of what an import gave: its format, skips, notes and each rank's whole trace (its
// threads and streams field by field: their structs' padding bytes are not theirs to compare).
std::string encoded(const ImportedFile& f) {
  std::string bytes;
  traces::ByteWriter out(bytes);
  out.text(f.format);
  for (const auto& [what, n] : f.skipped) {
    out.text(what);
    out.value(n);
  }
  for (const std::string& note : f.notes) out.text(note);
  out.value(f.ranks.size());
  for (traces::RankTrace r : f.ranks) {
    for (const traces::Thread& t : r.threads) out.value(t.tid), out.value(t.name);
    for (const traces::Stream& s : r.streams) {
      out.value(s.device), out.value(s.streamId), out.value(s.name);
    }
    r.threads.clear();
    r.streams.clear();
    traces::encodeRankTrace(r, out);
  }
  return bytes;
}

// The import's bytes, or "error: " and its message.
std::string imported(ByteSource& source, bool aside) {
  try {
    return encoded(traces::import::importChromeTrace(source, aside));
  } catch (const traces::TraceError& e) {
    return std::string("error: ") + e.what();
  }
}

std::string importedFile(const std::filesystem::path& file, bool aside) {
  ByteSource source(file);
  return imported(source, aside);
}

std::string importedText(const std::string& json, bool aside) {
  ByteSource source(json, "t.json");
  return imported(source, aside);
}

// Compares without printing megabytes of bytes: an error's message, else the sizes.
void expectSame(const std::string& aside, const std::string& inLine, const std::string& what) {
  if (aside == inLine) return;
  const auto shown = [](const std::string& s) {
    return s.starts_with("error: ") ? s : std::to_string(s.size()) + " bytes of ranks";
  };
  ADD_FAILURE() << what << ": parsed aside " << shown(aside) << ", in line " << shown(inLine);
}

void expectSameFile(const std::filesystem::path& file) {
  expectSame(importedFile(file, true), importedFile(file, false), file.string());
}

MegatronTimeline megatron(int dp, int steps) {
  MegatronJob job;
  job.pp = 4, job.tp = 2, job.dp = dp, job.steps = steps;
  job.slowStage = 2, job.slowStageFactor = 1.3;
  return executeMegatron(job);
}

TEST(ParseAside, MegatronTimelinesOfManyBatchesImportTheSame) {
  const MegatronTimeline timeline = megatron(2, 60);
  testing::TempDir dir;
  size_t files = 0;
  for (NdMetadata m : {NdMetadata::First, NdMetadata::Last, NdMetadata::Interleaved}) {
    for (bool gzip : {false, true}) {
      const auto file =
          dir.path() / ("t" + std::to_string(files++) + (gzip ? ".json.gz" : ".json"));
      writeNdTimeline(timeline, file, gzip, m);
      expectSameFile(file);
    }
  }
  // Many batches: the stream hands over 2,048 events at a time.
  const std::string json = ndTimelineJson(timeline, NdMetadata::Last);
  const std::string a = importedText(json, true);
  ASSERT_FALSE(a.starts_with("error: ")) << a;
  EXPECT_GT(std::count(json.begin(), json.end(), '\n'), 10 * 2048);
}

TEST(ParseAside, EveryKinetoCaseImportsTheSame) {
  size_t files = 0;
  for (const auto& cases : {standardCases(), zbVCases(), bufferedCases()}) {
    for (const Case& c : cases) {
      testing::TempDir dir;
      analyseAs(Stack::Kineto, c.spec, dir.path());
      for (const auto& entry : std::filesystem::recursive_directory_iterator(dir.path())) {
        if (!entry.is_regular_file()) continue;
        const std::string name = entry.path().filename().string();
        if (!name.ends_with(".json") && !name.ends_with(".json.gz")) continue;
        SCOPED_TRACE(c.name);
        expectSameFile(entry.path());
        ++files;
      }
    }
  }
  EXPECT_GT(files, 50u);
}

TEST(ParseAside, ThePublicTracesImportTheSame) {
  SKIP_WITHOUT_SHARED_DATA();
  for (const char* f :
       {"ndtimeline/bytedance-st-timeline.json.gz", "ndtimeline/bytedance-se-timeline.json.gz",
        "kineto/hta-ws16-rank0-sendrecv.json.gz", "kineto/hta-ddp2-rank0-nccl.json.gz",
        "kineto/hta-ns-resolution-rank0.json.gz", "kineto/deepseek-dualpipe-ep64-rank0.json.gz"}) {
    expectSameFile(testing::sharedData(f));
  }
}

TEST(ParseAside, MalformedEventsAreCountedAndBadFilesRefusedTheSame) {
  const std::string good = R"({"ph":"X","name":"F mb=0","pid":1,"tid":1,"ts":10,"dur":5},)"
                           R"({"ph":"X","name":"B mb=0","pid":1,"tid":1,"ts":20,"dur":5})";
  const std::string malformed = R"({"ph":"X","name":"x","pid":1.5,"tid":1,"ts":1},)";
  for (const std::string& json : {
           "{\"traceEvents\": [" + malformed + good + "], \"displayTimeUnit\": \"ns\"}",
           "[" + malformed + malformed + "{\"ph\":\"X\",\"pid\":2.5}]",  // nothing but malformed
           "[" + good,                                                   // truncated
           "{\"traceEvents\": [" + good + "] \"x\": 1}",                 // malformed JSON
           std::string("not json"),
       }) {
    const std::string a = importedText(json, true), b = importedText(json, false);
    expectSame(a, b, json);
  }
  EXPECT_EQ(importedText("[" + good, true), "error: t.json: the JSON ends in the middle (after " +
                                                std::to_string(1 + good.size()) +
                                                " bytes): the file is truncated");
}

TEST(ParseAside, TheFirstErrorInFileOrderWinsAndStopsTheParse) {
  // A builder's refusal (a microbatch id beyond an int) early in a long timeline that is also
  // truncated: the refusal, as in line, and the parse stops well before the end of the file.
  std::string json = ndTimelineJson(megatron(1, 200), NdMetadata::First);
  const size_t at = json.find("\"mb_id\":", json.find("\"ph\":\"X\""));
  ASSERT_NE(at, std::string::npos);
  json.insert(at + 8, "9");
  json.insert(at + 8, "99999999999");
  json.resize(json.size() - 100);
  const std::string inLine = importedText(json, false);
  ASSERT_TRUE(inLine.starts_with("error: ")) << inLine;
  EXPECT_NE(inLine.find("args.mb_id"), std::string::npos) << inLine;
  ByteSource source(json, "t.json");
  EXPECT_EQ(imported(source, true), inLine);
  EXPECT_LT(source.bytesOut(), json.size() / 2) << "the parse ran on after the builder failed";
}

}  // namespace
}  // namespace bubblescope::tracegen
