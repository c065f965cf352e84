// What decoding NCCL's payloads from blobs costs an Nsight Systems import (issue 27's budget:
// at most 10% of the import). One generated torch-style 1F1B job (tests/tracegen) is written as
// nsys exports in the three shapes nsys keeps NCCL's payloads in: JSON (--include-json=true),
// blobs (--include-blobs=true) and none; the three are imported in turn, on one core, round after
// round (paired: each round times all three, in a rotating order), and the median of each is
// reported, in the thread's CPU time (the import runs on the calling thread; CPU time does not
// count the waits of a machine shared with other builds). Blob decoding's share of the import is
// (blobs - none) / blobs: reading the column and decoding it, all that the blob export makes the
// importer do beyond the export without payloads. The decoder alone is timed too, on the job's own
// blobs.
//
//   nsys_import_bench [--kernels-per-op 40] [--steps 12] [--rounds 11] [--dir /tmp]
//   nsys_import_bench --write DIR [--kernels-per-op 40] [--steps 12]   (the three exports, kept:
//                                                                         DIR/json, blobs, none)
//   nsys_import_bench --import DIR   (imports DIR's files once, for callgrind: the instructions
//                                     of each shape, and PayloadSchemas::decode's share)
//
// --kernels-per-op 4 makes NCCL's ranges a far larger share of the events than a real job's: the
// budget's worst case.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/tracegen/execution.h"
#include "tests/tracegen/nsys_stack.h"
#include "traces/import/nsys/nsys_import.h"
#include "traces/import/nsys/nvtx_payload_blob.h"
#include "traces/sqlite/sqlite_db.h"

namespace {

namespace fs = std::filesystem;
using namespace bubblescope;

struct Options {
  int kernelsPerOp = 40;
  int steps = 12;
  int rounds = 11;
  fs::path dir = fs::temp_directory_path();
  fs::path write, import;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--kernels-per-op") {
      o.kernelsPerOp = std::atoi(argv[i + 1]);
    } else if (flag == "--steps") {
      o.steps = std::atoi(argv[i + 1]);
    } else if (flag == "--rounds") {
      o.rounds = std::atoi(argv[i + 1]);
    } else if (flag == "--dir") {
      o.dir = argv[i + 1];
    } else if (flag == "--write") {
      o.write = argv[i + 1];
    } else if (flag == "--import") {
      o.import = argv[i + 1];
    } else {
      std::fprintf(stderr, "nsys_import_bench: unknown flag %s\n", flag.c_str());
      std::exit(2);
    }
  }
  return o;
}

// comm_split_bench's job: 8 ranks, 32 microbatches, skewed clocks, a little jitter.
tracegen::JobSpec jobOf(const Options& o) {
  tracegen::JobSpec s;
  s.p = 8;
  s.m = 32;
  s.steps = o.steps;
  s.kernelsPerOp = o.kernelsPerOp;
  s.clockSkew = {0, 430'000, -270'000, 910'000, 120'000, -640'000, 55'000, 300'000};
  s.jitter = 0.05;
  return s;
}

struct Shape {
  const char* name;
  tracegen::NsysPayloads payloads;
  std::vector<fs::path> files;
  std::vector<double> seconds;
  size_t events = 0, calls = 0;
};

double cpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}

double importAll(Shape& s) {
  const double t0 = cpuSeconds();
  size_t events = 0, calls = 0;
  for (const fs::path& f : s.files) {
    const traces::import::ImportedFile imported = traces::import::importNsysFile(f);
    for (const traces::RankTrace& t : imported.ranks) {
      events += t.eventCount();
      calls += t.ncclCalls->size();
    }
  }
  const double seconds = cpuSeconds() - t0;
  s.events = events;
  s.calls = calls;
  return seconds;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double mins(const Shape& s) {
  return *std::min_element(s.seconds.begin(), s.seconds.end());
}

// The decoder alone on every blob of the files: ns per blob.
double decodeNs(const std::vector<fs::path>& files, size_t& blobs) {
  std::vector<std::pair<int64_t, std::string>> all;
  traces::import::PayloadSchemas schemas;
  for (const fs::path& f : files) {
    traces::sqlite::Database db(f, traces::sqlite::Database::Mode::ReadOnly);
    auto st = db.prepare(
        "SELECT e.domainId, e.schemaId, e.idx, e.type, e.name, coalesce(e.offset, -1), "
        "s.payloadSize FROM NVTX_PAYLOAD_SCHEMA_ENTRIES e JOIN NVTX_PAYLOAD_SCHEMAS s USING "
        "(domainId, schemaId)");
    while (st.step()) {
      schemas.addSchema(st.int64(0), static_cast<uint64_t>(st.int64(1)),
                        static_cast<uint64_t>(st.int64(6)));
      schemas.addEntry(
          st.int64(0), static_cast<uint64_t>(st.int64(1)), st.int64(2),
          {static_cast<uint64_t>(st.int64(3)), 0, std::string(st.text(4)), st.int64(5)});
    }
    auto rows =
        db.prepare("SELECT domainId, binaryData FROM NVTX_EVENTS WHERE binaryData IS NOT NULL");
    while (rows.step()) all.emplace_back(rows.int64(0), std::string(rows.blob(1)));
  }
  blobs = all.size();
  if (all.empty()) return 0;
  constexpr int kRepeats = 50;
  int64_t sink = 0;
  const double t0 = cpuSeconds();
  for (int r = 0; r < kRepeats; ++r) {
    for (const auto& [domain, blob] : all) {
      if (auto p = schemas.decode(domain, blob, {true, true, false})) sink += p->peer;
    }
  }
  const double ns = (cpuSeconds() - t0) * 1e9;
  if (sink == 42) std::puts("");  // keep the work
  return ns / (kRepeats * static_cast<double>(all.size()));
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  if (!o.import.empty()) {
    Shape s{"files", tracegen::NsysPayloads::Json, {}, {}};
    for (const auto& e : fs::directory_iterator(o.import)) s.files.push_back(e.path());
    std::sort(s.files.begin(), s.files.end());
    const double seconds = importAll(s);
    std::printf("%zu events, %zu NCCL calls imported in %.1f ms CPU\n", s.events, s.calls,
                1e3 * seconds);
    return 0;
  }
  const tracegen::JobTimeline job = tracegen::execute(jobOf(o));
  std::vector<Shape> shapes = {{"json", tracegen::NsysPayloads::Json, {}, {}},
                               {"blobs", tracegen::NsysPayloads::Blobs, {}, {}},
                               {"none", tracegen::NsysPayloads::None, {}, {}}};
  const fs::path root =
      !o.write.empty() ? o.write
                       : o.dir / ("bubblescope-bench-nsys-payloads-" + std::to_string(getpid()));
  for (Shape& s : shapes) {
    const fs::path dir = root / s.name;
    fs::create_directories(dir);
    tracegen::NsysOptions n;
    n.payloads = s.payloads;
    s.files = tracegen::writeNsysExports(job, dir, n);
  }
  if (!o.write.empty()) return 0;
  for (Shape& s : shapes) importAll(s);  // warm the page cache
  for (int round = 0; round < o.rounds; ++round) {
    for (size_t k = 0; k < shapes.size(); ++k) {
      Shape& s = shapes[(k + static_cast<size_t>(round)) % shapes.size()];
      s.seconds.push_back(importAll(s));
    }
  }
  uintmax_t bytes = 0;
  for (const fs::path& f : shapes[1].files) bytes += fs::file_size(f);
  std::printf(
      "job: 8 ranks, m=32, %d steps, %d kernels per op; %zu events, %zu NCCL calls; "
      "blob export %.1f MB in %zu files\n",
      o.steps, o.kernelsPerOp, shapes[1].events, shapes[1].calls, bytes / 1e6,
      shapes[1].files.size());
  for (const Shape& s : shapes) {
    std::printf("import %-5s  median %8.1f ms CPU  (min %.1f, max %.1f, %d rounds)\n", s.name,
                1e3 * median(s.seconds), 1e3 * mins(s),
                1e3 * *std::max_element(s.seconds.begin(), s.seconds.end()), o.rounds);
  }
  const double json = median(shapes[0].seconds), blobs = median(shapes[1].seconds),
               none = median(shapes[2].seconds);
  size_t decoded = 0;
  const double perBlob = decodeNs(shapes[1].files, decoded);
  // Per round: the three ran back to back, so their differences share that round's load.
  std::vector<double> share, vsJson;
  for (int r = 0; r < o.rounds; ++r) {
    share.push_back((shapes[1].seconds[r] - shapes[2].seconds[r]) / shapes[1].seconds[r]);
    vsJson.push_back(shapes[1].seconds[r] / shapes[0].seconds[r]);
  }
  std::printf(
      "blob decoding, paired: (blobs - none) / blobs = %+.1f%% of the import, median of the "
      "rounds (%+.1f%% of the medians, %+.1f%% of the minima; budget 10%%)\n",
      100 * median(share), 100 * (blobs - none) / blobs,
      100 * (mins(shapes[1]) - mins(shapes[2])) / mins(shapes[1]));
  std::printf("blobs / json = %.3f (median of the rounds; %.3f of the medians)\n", median(vsJson),
              blobs / json);
  std::printf(
      "the decoder alone: %.0f ns per blob x %zu blobs = %.2f ms, %.2f%% of the blob "
      "import\n",
      perBlob, decoded, perBlob * static_cast<double>(decoded) / 1e6,
      100 * perBlob * static_cast<double>(decoded) / 1e9 / blobs);
  fs::remove_all(root);
  return 0;
}
