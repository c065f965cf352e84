// A trace file followed into memory (a watch beside a file window, traces/sqlite/trace_mirror.h):
// the file gets byte for byte the rows it gets unfollowed, the mirror holds what the file holds
// (from its start, or only what came after it began), and a pruned mirror goes on following.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "tests/support/temp_dir.h"
#include "tests/traces/sample_trace.h"
#include "traces/sqlite/sqlite_db.h"
#include "traces/sqlite/trace_mirror.h"
#include "traces/sqlite/trace_reader.h"
#include "traces/sqlite/trace_writer.h"

namespace bubblescope::traces {
namespace {

using testing::sampleTrace;
using testing::TempDir;

// Every row of every table of a trace file, as text, in the order SQLite stores them.
std::vector<std::string> allRows(const std::filesystem::path& file) {
  sqlite::Database db(file, sqlite::Database::Mode::ReadOnly);
  std::vector<std::string> tables;
  auto names = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
  while (names.step()) tables.emplace_back(names.text(0));
  std::vector<std::string> rows;
  for (const std::string& table : tables) {
    auto st = db.prepare("SELECT * FROM " + table);
    while (st.step()) {
      std::string row = table + ":";
      for (int c = 0; c < st.columns(); ++c) {
        row += st.isNull(c) ? std::string("NULL") : std::string(st.blob(c));
        row += '|';
      }
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

// Each range's name, sorted: the reader orders ranges by time.
std::multiset<std::string> rangeNames(const RankTrace& t) {
  std::multiset<std::string> names;
  for (StringId id : t.ranges->name) names.emplace(t.strings.at(id));
  return names;
}

RankTrace readMirror(TraceWriter& mirror) {
  const std::string image = mirror.image();
  sqlite::Database db = sqlite::Database::fromBytes(image);
  return readRankTrace(db, "mirror");
}

// The same batches into two files, one followed after each commit: same rows, and the mirror
// holds the file's trace.
TEST(TraceMirror, AFollowedFileHoldsTheSameRowsAsOneThatIsNot) {
  TempDir dir;
  const RankTrace in = sampleTrace(2);
  TraceWriter followed(dir / "followed.sqlite", in.meta);
  TraceWriter alone(dir / "alone.sqlite", in.meta);
  auto memory = TraceWriter::inMemory(RankMeta{});
  {
    TraceMirror mirror(followed, *memory, true);
    for (int batch = 0; batch < 3; ++batch) {
      for (TraceWriter* w : {&followed, &alone}) {
        writeRankTraceRows(in, *w);
        w->setAliveNs(1000 + batch);
        w->addThread(in.threads.front().tid, "renamed " + std::to_string(batch));
        w->commit();
      }
      mirror.copyCommitted();
      mirror.copyCommitted();  // nothing new: nothing copied twice
    }
    const RankTrace fromMirror = readMirror(*memory);
    const RankTrace fromFile = readRankTrace(dir / "followed.sqlite");
    EXPECT_EQ(fromMirror.meta.rank, 2);
    EXPECT_EQ(fromMirror.meta.runId, fromFile.meta.runId);
    EXPECT_EQ(fromMirror.meta.aliveNs, 1002);
    EXPECT_EQ(fromMirror.meta.captureWindows.size(), fromFile.meta.captureWindows.size());
    EXPECT_EQ(fromMirror.eventCount(), fromFile.eventCount());
    EXPECT_EQ(fromMirror.eventCount(), 3 * in.eventCount());
    EXPECT_EQ(fromMirror.ranges->start, fromFile.ranges->start);
    EXPECT_EQ(rangeNames(fromMirror), rangeNames(fromFile));
    EXPECT_EQ(fromMirror.strings.size(), fromFile.strings.size());
    EXPECT_EQ(fromMirror.kernels->correlation, fromFile.kernels->correlation);
    EXPECT_EQ(fromMirror.threads.size(), fromFile.threads.size());
    EXPECT_EQ(fromMirror.strings.at(fromMirror.threads.front().name), "renamed 2");
  }  // the mirror's statements go before the file closes
  followed.close();
  alone.close();
  const std::vector<std::string> a = allRows(dir / "followed.sqlite");
  const std::vector<std::string> b = allRows(dir / "alone.sqlite");
  ASSERT_GT(a.size(), 50u);
  EXPECT_EQ(a, b);
}

// Begun on a file that holds events already: the mirror takes the names and the metadata, and
// only the events committed after it began; pruned, it goes on with the next ones.
TEST(TraceMirror, FollowingFromNowLeavesOutTheEventsBeforeIt) {
  TempDir dir;
  const RankTrace in = sampleTrace(1);
  TraceWriter file(dir / "file.sqlite", in.meta);
  writeRankTraceRows(in, file);
  auto memory = TraceWriter::inMemory(RankMeta{});
  TraceMirror mirror(file, *memory, false);
  mirror.copyCommitted();
  RankTrace now = readMirror(*memory);
  EXPECT_EQ(now.eventCount(), 0u);
  EXPECT_EQ(now.meta.rank, 1);
  EXPECT_GT(now.strings.size(), 1u);

  writeRankTraceRows(in, file);
  mirror.copyCommitted();
  now = readMirror(*memory);
  EXPECT_EQ(now.eventCount(), in.eventCount());
  ASSERT_EQ(now.ranges->size(), in.ranges->size());
  EXPECT_EQ(rangeNames(now), rangeNames(in));  // names resolve through the file's string ids

  memory->pruneBefore(INT64_MAX);  // everything ended before: all events go
  EXPECT_EQ(readMirror(*memory).ranges->size(), 0u);
  writeRankTraceRows(in, file);
  mirror.copyCommitted();
  EXPECT_EQ(readMirror(*memory).ranges->size(), in.ranges->size());
}

// A watch's trace goes on across a file window: a mirror into a trace that holds events and names
// of its own keeps them, and the file's events read with their own names.
TEST(TraceMirror, AMirrorIntoATraceWithNamesOfItsOwnRenumbersTheFilesNames) {
  TempDir dir;
  const RankTrace in = sampleTrace(3);
  auto memory = TraceWriter::inMemory(RankMeta{});
  RangeRecord own;
  own.start = 10;
  own.end = 20;
  own.tid = in.threads.front().tid;
  own.endTid = own.tid;
  own.name = memory->intern("watched before the file");
  memory->addThread(own.tid, "main");
  memory->add(own);
  memory->commit();
  TraceWriter file(dir / "file.sqlite", in.meta);
  writeRankTraceRows(in, file);
  TraceMirror mirror(file, *memory, true);
  mirror.copyCommitted();
  const RankTrace out = readMirror(*memory);
  std::multiset<std::string> names = rangeNames(in);
  names.insert("watched before the file");
  EXPECT_EQ(rangeNames(out), names);
  EXPECT_EQ(out.eventCount(), in.eventCount() + 1);
  EXPECT_EQ(out.kernels->size(), in.kernels->size());
  // The trace is the memory writer's still: it interns and writes on after the mirror.
  own.name = memory->intern("watched after the file");
  memory->add(own);
  memory->commit();
  EXPECT_EQ(rangeNames(readMirror(*memory)).count("watched after the file"), 1u);
}

}  // namespace
}  // namespace bubblescope::traces
