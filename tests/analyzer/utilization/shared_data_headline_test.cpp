// The utilization headline on real traces (shared/data): the FSDP capture whose devices copied
// 940 of 969 ms opens with the copies, their directions and bytes recounted here from the nsys
// export's own MEMCPY table; HTA's two sampled ranks of a 128-rank job open with the untraced
// majority; the other traces open with neither, and every trace's copies, direction by
// direction, hold the table's "other" between them.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/subprocess.h"
#include "tests/traces/import/shared_data.h"

namespace bubblescope::analysis {
namespace {

using nlohmann::json;

json utilizationOf(const std::vector<std::string>& files) {
  std::vector<std::string> args{"analyze"};
  args.insert(args.end(), files.begin(), files.end());
  args.insert(args.end(), {"--format", "json"});
  const auto r = testing::runBubblescope(args);
  EXPECT_EQ(r.exitCode, 0) << r.err;
  return json::parse(r.out)["utilization"];
}

struct RawCopies {
  int64_t count = 0;
  int64_t bytes = 0;
};

// copyKind -> copies and bytes, straight from CUPTI_ACTIVITY_KIND_MEMCPY.
std::map<int64_t, RawCopies> rawMemcpys(const std::string& file) {
  std::map<int64_t, RawCopies> out;
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db,
                               "SELECT copyKind, count(*), sum(bytes) FROM "
                               "CUPTI_ACTIVITY_KIND_MEMCPY GROUP BY copyKind",
                               -1, &st, nullptr),
            SQLITE_OK);
  while (sqlite3_step(st) == SQLITE_ROW) {
    out[sqlite3_column_int64(st, 0)] = {sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2)};
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return out;
}

const json* direction(const json& u, const std::string& name) {
  for (const json& c : u["copies"]) {
    if (c["direction"] == name) return &c;
  }
  return nullptr;
}

TEST(SharedDataHeadline, TheFsdpCaptureOpensWithItsCopiesAsTheExportRecordsThem) {
  SKIP_WITHOUT_SHARED_DATA();
  const std::string file = testing::sharedData("nsys/nsys-ai-h100-2gpu-fsdp.sqlite").string();
  const json u = utilizationOf({file});
  ASSERT_EQ(u["headline"].size(), 1u) << u["headline"].dump(2);
  EXPECT_EQ(u["headline"][0],
            "copies took 97.7% of the device's busy time (1880.9 of 1925.7 ms busy summed over 2 "
            "ranks; compute 44.8 ms): 1841.6 ms HtoD moving 47.5 GiB in 450 copies, 39.2 ms DtoD "
            "moving 55.3 GiB in 450 copies");

  // ENUM_CUDA_MEMCPY_OPER: 1 HtoD, 2 DtoH, 8 DtoD. The capture is one step: every copy counts.
  const std::map<int64_t, RawCopies> raw = rawMemcpys(file);
  for (const auto& [kind, name] :
       std::vector<std::pair<int64_t, std::string>>{{1, "HtoD"}, {2, "DtoH"}, {8, "DtoD"}}) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(raw.count(kind));
    const json* c = direction(u, name);
    ASSERT_NE(c, nullptr) << u["copies"].dump(2);
    EXPECT_EQ((*c)["count"].get<int64_t>(), raw.at(kind).count);
    EXPECT_EQ((*c)["bytes"].get<int64_t>(), raw.at(kind).bytes);
  }
}

TEST(SharedDataHeadline, TwoSampledRanksOfA128RankJobOpenWithTheUntracedMajority) {
  SKIP_WITHOUT_SHARED_DATA();
  const json u = utilizationOf({testing::sharedData("kineto/hta-ws128-sampled-rank0.json.gz"),
                                testing::sharedData("kineto/hta-ws128-sampled-rank1.json.gz")});
  EXPECT_EQ(u["headline"],
            json::array({"most members of the NCCL collectives are not traced: 2 of 128 members "
                         "traced in all 8 collectives (1.6% of their members); the wait figures "
                         "(140.2 ms) come from that minority, a lower bound on the job's wait"}));
}

TEST(SharedDataHeadline, OtherTracesOpenWithNeitherAndTheirDirectionsHoldTheOtherColumn) {
  SKIP_WITHOUT_SHARED_DATA();
  for (const char* f :
       {"kineto/hta-ddp2-rank0-nccl.json.gz", "kineto/hta-ws16-rank0-sendrecv.json.gz",
        "kineto/hta-ns-resolution-rank0.json.gz", "kineto/deepseek-dualpipe-ep64-rank0.json.gz",
        "nsys/nsys-ai-2gpu-mfu-before.sqlite", "nsys/nsys-ai-2gpu-mfu-after.sqlite"}) {
    SCOPED_TRACE(f);
    const json u = utilizationOf({testing::sharedData(f).string()});
    EXPECT_EQ(u["headline"], json::array());
    // Directions may run at once on separate copy engines: together at least the column, each
    // at most it.
    const int64_t other = u["total"]["other_busy_ns"];
    int64_t sum = 0;
    for (const json& c : u["copies"]) {
      EXPECT_LE(c["alone_ns"].get<int64_t>(), other) << c.dump();
      EXPECT_GT(c["count"].get<int64_t>(), 0) << c.dump();
      sum += c["alone_ns"].get<int64_t>();
    }
    EXPECT_GE(sum, other);
  }
}

}  // namespace
}  // namespace bubblescope::analysis
