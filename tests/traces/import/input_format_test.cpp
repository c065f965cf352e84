// What an input is, told by its content: compression by magic number, Kineto JSON by its
// traceEvents, our traces and nsys exports by their tables; and what a directory holds.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include "tests/support/temp_dir.h"
#include "tests/traces/import/compress.h"
#include "traces/errors.h"
#include "traces/import/detect_input.h"
#include "traces/import/run_import.h"
#include "traces/sqlite/trace_writer.h"

namespace bubblescope::traces::import {
namespace {

using testing::gzipped;
using testing::TempDir;
using testing::writeFile;

const std::string kTrace =
    R"J({"schemaVersion": 1, "traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm",
        "pid": 1, "tid": 1, "ts": 1, "dur": 1}]})J";

void sqliteFile(const std::filesystem::path& file, const char* sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(file.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
}

std::string errorOf(const std::vector<std::filesystem::path>& paths) {
  try {
    resolveInputs(paths);
  } catch (const TraceError& e) {
    return e.what();
  }
  return "";
}

TEST(InputFormat, ContentDecidesNotTheName) {
  TempDir dir;
  writeFile(dir / "trace.txt", gzipped(kTrace));
  writeFile(dir / "rank0.pt.trace.json", kTrace);
  writeFile(dir / "timeline.log", "[{\"ph\": \"X\", \"name\": \"forward-compute\"}]");
  writeFile(dir / "config.json", "{\"layers\": 24}");
  writeFile(dir / "notes.json.gz", gzipped("hello"));
  EXPECT_EQ(detectFile(dir / "trace.txt").format, InputFormat::ChromeTrace);
  EXPECT_EQ(detectFile(dir / "rank0.pt.trace.json").format, InputFormat::ChromeTrace);
  EXPECT_EQ(detectFile(dir / "timeline.log").format, InputFormat::ChromeTrace);
  const Detection config = detectFile(dir / "config.json");
  EXPECT_EQ(config.format, InputFormat::Unknown);
  EXPECT_EQ(config.why, "JSON, but not a trace: it has no \"traceEvents\" array");
  EXPECT_EQ(detectFile(dir / "notes.json.gz").why, "compressed, but not a JSON trace inside");
}

// Past the first MiB: a report with sorted keys says "tool" at its end, a trace with a large
// header says "traceEvents" late. Each is read on to tell them apart, compressed or not.
TEST(InputFormat, ALargeJsonObjectIsATraceOnlyIfItHasTraceEvents) {
  TempDir dir;
  const std::string padding = "\"" + std::string(size_t{3} << 20, 'x') + "\"";
  const std::string report = "{\"pipelines\": [" + padding + "], \"tool\": \"bubblescope\"}";
  const std::string lateTrace = "{\"deviceProperties\": [" + padding + "], " + kTrace.substr(1);
  writeFile(dir / "report.json", report);
  writeFile(dir / "report.json.gz", gzipped(report));
  writeFile(dir / "late.json", lateTrace);
  writeFile(dir / "late.json.gz", gzipped(lateTrace));
  writeFile(dir / "broken.json", report.substr(0, report.size() / 2));
  for (const char* file : {"report.json", "report.json.gz"}) {
    const Detection d = detectFile(dir / file);
    EXPECT_EQ(d.format, InputFormat::Unknown) << file;
    EXPECT_EQ(d.why, "JSON, but not a trace: it has no \"traceEvents\" array") << file;
  }
  EXPECT_EQ(detectFile(dir / "late.json").format, InputFormat::ChromeTrace);
  EXPECT_EQ(detectFile(dir / "late.json.gz").format, InputFormat::ChromeTrace);
  // Broken before it says: the import names what is wrong.
  EXPECT_EQ(detectFile(dir / "broken.json").format, InputFormat::ChromeTrace);

  // A report written beside the traces it was made from is not taken for one of them.
  TempDir traces;
  writeFile(traces / "rank0.json", kTrace);
  writeFile(traces / "report.json", report);
  const DirectoryContents c = scanDirectory(traces.path());
  EXPECT_EQ(c.format, InputFormat::ChromeTrace);
  ASSERT_EQ(c.files.size(), 1u);
  EXPECT_EQ(c.files[0].filename(), "rank0.json");
}

// Its layout is not documented: a file that is nothing we read is one by its name, and the
// message says how to get what bubblescope reads.
TEST(InputFormat, AnNsightSystemsReportSaysHowToExportIt) {
  TempDir dir;
  std::string bytes;
  for (int i = 0; i < 5000; ++i) bytes += static_cast<char>((i * 7919) % 251);
  writeFile(dir / "report1.nsys-rep", bytes);
  writeFile(dir / "old.qdrep", bytes);
  writeFile(dir / "random.bin", bytes);
  const Detection rep = detectFile(dir / "report1.nsys-rep");
  EXPECT_EQ(rep.format, InputFormat::Unknown);
  EXPECT_TRUE(rep.nsysReport);
  EXPECT_EQ(rep.why,
            "an Nsight Systems report (.nsys-rep), not its SQLite export; 'nsys export "
            "--type sqlite " +
                (dir / "report1.nsys-rep").string() + "' writes the export bubblescope reads");
  EXPECT_TRUE(detectFile(dir / "old.qdrep").nsysReport);
  EXPECT_FALSE(detectFile(dir / "random.bin").nsysReport);
  // Content still decides: an export named as a report is read as the export it is.
  sqliteFile(dir / "export.nsys-rep", "CREATE TABLE NVTX_EVENTS(start INTEGER);");
  EXPECT_EQ(detectFile(dir / "export.nsys-rep").format, InputFormat::Nsys);

  TempDir reports;
  writeFile(reports / "rank0.nsys-rep", bytes);
  writeFile(reports / "rank1.nsys-rep", bytes);
  writeFile(reports / "README.md", "# two ranks");
  EXPECT_EQ(errorOf({reports.path()}),
            reports.path().string() +
                ": no traces here (no bubblescope *.sqlite, Kineto JSON or Nsight Systems export "
                "among its 3 files), but 2 Nsight Systems reports (.nsys-rep): 'nsys export "
                "--type sqlite FILE' writes the export of one, which bubblescope reads");
}

TEST(InputFormat, SqliteIsOursByItsMetaAndNsysByItsTables) {
  TempDir dir;
  RankTrace t;
  t.meta.rank = 0;
  writeRankTrace(t, dir / "ours.db");
  sqliteFile(dir / "export.db", "CREATE TABLE NVTX_EVENTS(start INTEGER);");
  sqliteFile(dir / "other.db", "CREATE TABLE people(name TEXT);");
  EXPECT_EQ(detectFile(dir / "ours.db").format, InputFormat::Bubblescope);
  EXPECT_EQ(detectFile(dir / "export.db").format, InputFormat::Nsys);
  EXPECT_EQ(detectFile(dir / "other.db").why,
            "a SQLite database, but neither a bubblescope trace nor an Nsight Systems export");
}

TEST(InputFormat, ADirectoryIsReadForTheTracesAmongItsFiles) {
  TempDir dir;
  writeFile(dir / "rank10.json", kTrace);
  writeFile(dir / "rank2.json.gz", gzipped(kTrace));
  writeFile(dir / "README.md", "# traces of run 7");
  const DirectoryContents c = scanDirectory(dir.path());
  EXPECT_EQ(c.format, InputFormat::ChromeTrace);
  ASSERT_EQ(c.files.size(), 2u);
  EXPECT_EQ(c.files[0].filename(), "rank2.json.gz");  // natural order
  EXPECT_EQ(c.files[1].filename(), "rank10.json");
}

TEST(InputFormat, BadInputsAreOneSentenceNamingThePath) {
  TempDir dir;
  std::filesystem::create_directory(dir / "empty");
  EXPECT_EQ(errorOf({dir / "empty"}),
            (dir / "empty").string() + ": an empty directory, so no traces to read");
  writeFile(dir / "config.json", "{\"layers\": 24}");
  EXPECT_EQ(errorOf({dir / "config.json"}), (dir / "config.json").string() +
                                                ": JSON, but not a trace: it has no "
                                                "\"traceEvents\" array");
  EXPECT_EQ(errorOf({dir / "absent.json"}),
            (dir / "absent.json").string() + ": no such file or directory");
  writeFile(dir / "a.json", kTrace);
  sqliteFile(dir / "b.sqlite", "CREATE TABLE NVTX_EVENTS(start INTEGER);");
  EXPECT_NE(errorOf({dir / "a.json", dir / "b.sqlite"}).find("give one run in one format"),
            std::string::npos);
}

TEST(InputFormat, NaturalOrderComparesNumbersAsNumbers) {
  EXPECT_TRUE(naturalLess("rank2", "rank10"));
  EXPECT_FALSE(naturalLess("rank10", "rank2"));
  EXPECT_TRUE(naturalLess("rank-00002", "rank-10"));
  EXPECT_TRUE(naturalLess("a", "b"));
  EXPECT_FALSE(naturalLess("a1", "a1"));
}

TEST(InputFormat, TwoTracesClaimingOneRankAreRefused) {
  TempDir dir;
  const std::string r3 =
      R"J({"distributedInfo": {"rank": 3, "world_size": 4}, "traceEvents": [{"ph": "X",
          "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1, "dur": 1}]})J";
  writeFile(dir / "a.json", r3);
  writeFile(dir / "b.json", r3);
  try {
    importRun(resolveInputs({dir.path()}));
    FAIL();
  } catch (const TraceError& e) {
    EXPECT_EQ(std::string(e.what()), (dir / "b.json").string() +
                                         ": claims rank 3, as a.json does; give each run its "
                                         "own directory");
  }
}

// numberRanks's message for `claims`, or "" when it accepts them.
std::string numberingError(std::vector<RankClaim> claims) {
  std::vector<std::string> notes;
  try {
    numberRanks(claims, InputFormat::ChromeTrace, notes);
  } catch (const TraceError& e) {
    return e.what();
  }
  return "";
}

TEST(InputFormat, TracesOfTwoJobsAreRefusedNamingBothFiles) {
  struct Case {
    std::vector<RankClaim> claims;
    std::string error;
  };
  const std::vector<Case> cases = {
      {{{"a.json", 0, 4}, {"b.json", 1, 4}}, ""},
      {{{"a.json", 0, 4}, {"b.json", 1, -1}}, ""},  // a world size left out is no disagreement
      {{{"a.json", 0, 2}, {"d/b.json", 1, 128}},
       "d/b.json: is of a world of 128 ranks, a.json of 2: traces of two jobs; give each run its "
       "own directory"},
      {{{"a.json", 3, 4}, {"d/b.json", -1, -1}},
       "d/b.json: says no rank, while a.json claims rank 3: cannot tell which rank it is; import "
       "it on its own"},
      {{{"d/a.json", -1, -1}, {"b.json", 0, 4}},
       "d/a.json: says no rank, while b.json claims rank 0: cannot tell which rank it is; import "
       "it on its own"},
      {{{"a.json", 1, 4}, {"d/b.json", 1, 4}},
       "d/b.json: claims rank 1, as a.json does; give each run its own directory"},
      // One name in two directories: the other is named by enough of its path to tell it apart.
      {{{"n0/t.json", 1, 4}, {"n1/t.json", 1, 4}},
       "n1/t.json: claims rank 1, as n0/t.json does; give each run its own directory"},
      {{{"n0/t.json", 0, 2}, {"n1/t.json", 1, 128}},
       "n1/t.json: is of a world of 128 ranks, n0/t.json of 2: traces of two jobs; give each run "
       "its own directory"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(numberingError(c.claims), c.error) << c.claims[1].file;
  }
}

TEST(InputFormat, NsysRanksNumberedByTheImportSpanTheWorldFound) {
  std::vector<RankClaim> claims = {
      {"a.sqlite", -1, -1}, {"a.sqlite", -1, -1}, {"b.sqlite", -1, -1}};
  std::vector<std::string> notes;
  numberRanks(claims, InputFormat::Nsys, notes);
  for (size_t i = 0; i < claims.size(); ++i) {
    EXPECT_EQ(claims[i].rank, static_cast<int>(i));
    EXPECT_EQ(claims[i].worldSize, 3);
  }
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0],
            "no rank ids in the exports: ranks numbered by GPU, then process id, file by file");
}

TEST(InputFormat, TracesWithoutRanksAreNumberedInNameOrder) {
  TempDir dir;
  writeFile(dir / "worker10.json", kTrace);
  writeFile(dir / "worker9.json", kTrace);
  const ImportedRun r = importRun(resolveInputs({dir.path()}));
  ASSERT_EQ(r.run.ranks.size(), 2u);
  EXPECT_EQ(r.run.ranks[0].file.filename(), "worker9.json");
  EXPECT_EQ(r.run.ranks[0].meta.rank, 0);
  EXPECT_EQ(r.run.ranks[1].meta.rank, 1);
  ASSERT_EQ(r.notes.size(), 1u);
}

}  // namespace
}  // namespace bubblescope::traces::import
