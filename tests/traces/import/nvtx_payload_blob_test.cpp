// NCCL's payloads as `nsys export --include-blobs=true` keeps them, decoded through the payload
// schemas of a real export (shared/data/nsys; their rows are copied below for a clone without
// it): hand-made blobs of NCCL's structs, and blobs too short, of an unknown schema or of a
// layout that cannot be placed, which decode to nothing.
#include "traces/import/nsys/nvtx_payload_blob.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <tuple>

#include "tests/traces/import/shared_data.h"
#include "traces/sqlite/sqlite_db.h"

namespace bubblescope::traces::import {
namespace {

// One row of NVTX_PAYLOAD_SCHEMA_ENTRIES joined with its schema's payloadSize.
struct Row {
  int64_t domain;
  uint64_t schema;
  int64_t index;
  uint64_t type;
  std::string name;
  int64_t offset;  // -1: NULL
  uint64_t payloadSize;
  bool operator<(const Row& o) const {
    return std::tie(domain, schema, index) < std::tie(o.domain, o.schema, o.index);
  }
  bool operator==(const Row& o) const = default;
};

// NCCL's schemas as nsys-ai-h100-2gpu-fsdp.sqlite and the 2-GPU MFU pair hold them (2026.2).
const std::vector<Row> kCopiedRows = {
    {1, 16777218, 0, 18, "NCCL communicator ID", -1, 24},
    {1, 16777218, 1, 5, "No. of ranks", 8, 24},
    {1, 16777218, 2, 5, "Rank", 12, 24},
    {1, 16777218, 3, 5, "CUDA device", 16, 24},
    {1, 16777220, 0, 18, "NCCL communicator ID", -1, 16},
    {1, 16777220, 1, 22, "Message size [bytes]", 8, 16},
    {1, 16777222, 0, 18, "NCCL communicator ID", -1, 24},
    {1, 16777222, 1, 22, "Message size [bytes]", 8, 24},
    {1, 16777222, 2, 5, "Root", 16, 24},
    {1, 16777223, 0, 18, "NCCL communicator ID", -1, 24},
    {1, 16777223, 1, 22, "Message size [bytes]", 8, 24},
    {1, 16777223, 2, 16777232, "Reduction operation", 16, 24},
    {1, 16777225, 0, 18, "NCCL communicator ID", -1, 24},
    {1, 16777225, 1, 22, "Message size [bytes]", 8, 24},
    {1, 16777225, 2, 5, "Peer rank", 16, 24},
    {1, 16777226, 0, 18, "NCCL communicator ID", -1, 24},
    {1, 16777226, 1, 22, "Message size [bytes]", 8, 24},
    {1, 16777226, 2, 5, "Peer rank", 16, 24},
    {1, 16777227, 0, 18, "NCCL communicator ID", -1, 24},
    {1, 16777227, 1, 5, "No. of ranks", 8, 24},
    {1, 16777227, 2, 5, "Rank", 12, 24},
    {1, 16777227, 3, 5, "CUDA device", 16, 24},
    {1, 16777230, 0, 18, "NCCL communicator ID", -1, 8},
};

std::vector<Row> rowsOf(const std::filesystem::path& file) {
  sqlite::Database db(file, sqlite::Database::Mode::ReadOnly);
  auto st = db.prepare(
      "SELECT DISTINCT e.domainId, e.schemaId, e.idx, e.type, e.name, coalesce(e.offset, -1), "
      "s.payloadSize FROM NVTX_PAYLOAD_SCHEMA_ENTRIES e JOIN NVTX_PAYLOAD_SCHEMAS s ON "
      "s.domainId = e.domainId AND s.schemaId = e.schemaId");
  std::vector<Row> rows;
  while (st.step()) {
    rows.push_back({st.int64(0), static_cast<uint64_t>(st.int64(1)), st.int64(2),
                    static_cast<uint64_t>(st.int64(3)), std::string(st.text(4)), st.int64(5),
                    static_cast<uint64_t>(st.int64(6))});
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

// The real export's rows where shared/data is beside the clone, else the copy.
std::vector<Row> realRows() {
  if (!testing::haveSharedData()) return kCopiedRows;
  return rowsOf(testing::sharedData("nsys/nsys-ai-2gpu-mfu-before.sqlite"));
}

PayloadSchemas schemasOf(const std::vector<Row>& rows) {
  PayloadSchemas s;
  for (const Row& r : rows) {
    s.addSchema(r.domain, r.schema, r.payloadSize);
    s.addEntry(r.domain, r.schema, r.index, {r.type, 0, r.name, r.offset});
  }
  return s;
}

// Little-endian bytes of a value, as an x86 NCCL writes its structs.
void put(std::string& b, size_t at, uint64_t v, size_t n) {
  if (b.size() < at + n) b.resize(at + n, '\0');
  for (size_t i = 0; i < n; ++i) b[at + i] = static_cast<char>(v >> (8 * i));
}

// NcclNvtxParamsSendRecv {uint64_t comm; size_t bytes; int peer;} with its 4 bytes of padding.
std::string sendRecv(uint64_t comm, uint64_t bytes, int32_t peer) {
  std::string b(24, '\0');
  put(b, 0, comm, 8);
  put(b, 8, bytes, 8);
  put(b, 16, static_cast<uint32_t>(peer), 4);
  return b;
}

// nvtxPayloadData_t serialised: the schema id and the size, then the bytes.
std::string withHeader(uint64_t schema, const std::string& payload) {
  std::string b;
  put(b, 0, schema, 8);
  put(b, 8, payload.size(), 8);
  return b + payload;
}

constexpr PayloadNeeds kSendRecv{true, true, false};
constexpr uint64_t kComm = 17'293'822'569'102'704'642ull;  // above 2^63, as half of them are

TEST(NvtxPayloadBlob, CopiedSchemaRowsAreTheSharedExportsRows) {
  SKIP_WITHOUT_SHARED_DATA();
  for (const char* f :
       {"nsys/nsys-ai-2gpu-mfu-before.sqlite", "nsys/nsys-ai-2gpu-mfu-after.sqlite"}) {
    EXPECT_EQ(rowsOf(testing::sharedData(f)), kCopiedRows) << f;
  }
}

TEST(NvtxPayloadBlob, ASendsBlobGivesCommunicatorSizeAndPeer) {
  const PayloadSchemas s = schemasOf(realRows());
  const auto p = s.decode(1, withHeader(16777225, sendRecv(kComm, 8388608, 3)), kSendRecv);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->comm, kComm);
  EXPECT_EQ(p->bytes, 8388608);
  EXPECT_EQ(p->peer, 3);
  EXPECT_EQ(p->rank, -1);
}

TEST(NvtxPayloadBlob, ASignedPeerIsSignExtended) {
  const PayloadSchemas s = schemasOf(realRows());
  const auto p = s.decode(1, withHeader(16777226, sendRecv(7, 64, -2)), kSendRecv);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->peer, -2);  // the importer refuses it, naming the field
}

TEST(NvtxPayloadBlob, ACommunicatorsCreationGivesRankAndSize) {
  const PayloadSchemas s = schemasOf(realRows());
  // NcclNvtxParamsCommInitRank {uint64_t newcomm; int nranks; int myrank; int cudaDev;}
  std::string b;
  put(b, 0, kComm, 8);
  put(b, 8, 4, 4);
  put(b, 12, 2, 4);
  put(b, 16, 1, 4);
  put(b, 20, 0, 4);
  const auto p = s.decode(1, withHeader(16777218, b), {false, false, true});
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->comm, kComm);
  EXPECT_EQ(p->ranks, 4);
  EXPECT_EQ(p->rank, 2);
  EXPECT_EQ(p->peer, -1);
}

// Without the schema id in front, a blob is read by the domain's schemas of its size that hold
// what the call needs, where they agree: the send and receive schemas, for a send.
TEST(NvtxPayloadBlob, APayloadWithoutItsSchemaIdIsReadByTheSchemasThatFit) {
  const PayloadSchemas s = schemasOf(realRows());
  const auto send = s.decode(1, sendRecv(kComm, 4096, 1), kSendRecv);
  ASSERT_TRUE(send.has_value());
  EXPECT_EQ(send->peer, 1);
  EXPECT_EQ(send->bytes, 4096);
  // An all-reduce needs the size only: every 24-byte schema with one reads it alike.
  const auto allReduce = s.decode(1, sendRecv(kComm, 4096, 0), {true, false, false});
  ASSERT_TRUE(allReduce.has_value());
  EXPECT_EQ(allReduce->comm, kComm);
  EXPECT_EQ(allReduce->bytes, 4096);
  EXPECT_EQ(allReduce->peer, -1);
}

TEST(NvtxPayloadBlob, BadBlobsDecodeToNothing) {
  const PayloadSchemas s = schemasOf(realRows());
  const std::string good = withHeader(16777225, sendRecv(kComm, 8, 1));
  EXPECT_TRUE(s.decode(1, good, kSendRecv).has_value());
  EXPECT_FALSE(s.decode(1, "", kSendRecv).has_value());
  EXPECT_FALSE(s.decode(1, good.substr(0, 20), kSendRecv).has_value());  // cut short
  EXPECT_FALSE(s.decode(1, good.substr(0, 16), kSendRecv).has_value());  // the header alone
  EXPECT_FALSE(s.decode(2, good, kSendRecv).has_value());                // another domain's
  // A size beyond the blob; a size below the schema's payload.
  std::string lying = good;
  put(lying, 8, 1'000'000, 8);
  EXPECT_FALSE(s.decode(1, lying, kSendRecv).has_value());
  std::string shortPayload = withHeader(16777225, sendRecv(kComm, 8, 1).substr(0, 12));
  EXPECT_FALSE(s.decode(1, shortPayload, kSendRecv).has_value());
  // A schema id the export does not hold, of no schema's size.
  EXPECT_FALSE(s.decode(1, withHeader(16777299, std::string(40, '\1')), kSendRecv).has_value());
  // The payload alone, of no schema's size.
  EXPECT_FALSE(s.decode(1, std::string(23, '\0'), kSendRecv).has_value());
}

// An entry we cannot size (a nested schema) leaves the ones after it without an offset unplaced,
// and one of a type that is not an integer is not read.
TEST(NvtxPayloadBlob, FieldsThatCannotBePlacedAreNotRead) {
  PayloadSchemas s;
  s.addSchema(5, 99, 24);
  s.addEntry(5, 99, 0, {18, 0, "NCCL communicator ID", -1});
  s.addEntry(5, 99, 1, {16777300, 0, "nested", -1});
  s.addEntry(5, 99, 2, {22, 0, "Message size [bytes]", -1});
  s.addEntry(5, 99, 3, {20, 0, "Peer rank", 16});  // a double
  const auto p = s.decode(5, withHeader(99, sendRecv(kComm, 8, 1)), kSendRecv);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->comm, kComm);
  EXPECT_EQ(p->bytes, -1);
  EXPECT_EQ(p->peer, -1);
}

TEST(NvtxPayloadBlob, RepeatedSchemaRowsCountOnce) {
  std::vector<Row> twice = realRows();
  const std::vector<Row> once = twice;
  twice.insert(twice.end(), once.begin(), once.end());  // nsys writes them once per process
  const PayloadSchemas s = schemasOf(twice);
  const auto p = s.decode(1, withHeader(16777225, sendRecv(kComm, 8, 1)), kSendRecv);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->peer, 1);
}

}  // namespace
}  // namespace bubblescope::traces::import
