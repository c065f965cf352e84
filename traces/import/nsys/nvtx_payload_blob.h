#pragma once
// NCCL's NVTX payloads as an nsys export keeps them: rendered as JSON (`--include-json=true`,
// NVTX_EVENTS.jsonText) or as bytes (`--include-blobs=true`, binaryData) laid out by the schemas
// the export holds (NVTX_PAYLOAD_SCHEMAS, NVTX_PAYLOAD_SCHEMA_ENTRIES). Pure: no I/O.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace bubblescope::traces::import {

// What an NCCL call's payload says; a field it does not hold stays as it is here.
struct NcclPayload {
  uint64_t comm = 0;   // the communicator's hash ("NCCL communicator ID"), all 64 bits
  int64_t bytes = -1;  // "Message size [bytes]"
  int64_t peer = -1;   // "Peer rank": the peer's rank in the communicator
  int64_t rank = -1;   // "Rank": the caller's rank in a communicator it creates
  int64_t ranks = -1;  // "No. of ranks": that communicator's size
  bool operator==(const NcclPayload&) const = default;
};

// The fields a call's op needs from its payload: a collective its size, a send or receive its
// peer too, a communicator's creation the caller's rank in it and its size.
struct PayloadNeeds {
  bool bytes = false, peer = false, rank = false;
};

// The fields of NCCL's payload in nsys's JSON rendering ({"Peer rank": 3, ...}): the
// communicator, size and peer, and the rank fields where `needs` asks; absent ones (or numbers
// that do not parse) stay unset.
NcclPayload ncclPayloadFromJson(std::string_view json, const PayloadNeeds& needs);

// One row of NVTX_PAYLOAD_SCHEMA_ENTRIES: an entry's type (NVTX_PAYLOAD_ENTRY_TYPE_*, or a
// registered enum or schema id), flags, name and offset (-1: NULL, self-aligned after the entry
// before it, as NVTX lays out a C struct).
struct PayloadEntryRow {
  uint64_t type = 0;
  uint64_t flags = 0;
  std::string name;
  int64_t offset = -1;
};

// The schemas of an export, by (domain, schema id), and the payloads their blobs hold.
//
// binaryData is taken as nvtxPayloadData_t serialised: the schema id and the payload's size (8
// bytes each, little-endian), then the payload. A blob whose first 8 bytes name no schema of its
// domain is taken as the payload alone, read by the domain's schemas of its size that hold the
// fields the call needs, when they all read those alike (and only those are kept). Anything else
// (no schema, too short, fields of a type that is not an integer) decodes to nothing.
class PayloadSchemas {
 public:
  // nsys writes a domain's schemas once per process: the first rows of a (domain, id) count.
  void addSchema(int64_t domain, uint64_t id, uint64_t payloadSize);
  // Entries of a schema in index order (`index` from 0); a repeated index is ignored.
  void addEntry(int64_t domain, uint64_t id, int64_t index, const PayloadEntryRow& row);
  bool empty() const { return schemas_.empty(); }

  // What `blob` (a range's binaryData in `domain`) says, or nothing.
  std::optional<NcclPayload> decode(int64_t domain, std::string_view blob,
                                    const PayloadNeeds& needs) const;

 private:
  // Where one of NcclPayload's fields sits in a payload.
  struct Field {
    size_t offset = 0;
    uint8_t size = 0;  // 0: the schema does not hold it (or not as an integer we can read)
    bool isSigned = false;
  };
  enum { kComm, kBytes, kPeer, kRank, kRanks, kFields };
  struct Schema {
    uint64_t payloadSize = 0;
    std::vector<std::pair<int64_t, PayloadEntryRow>> rows;  // by index
    Field fields[kFields];
  };

  static void resolve(Schema& s);
  static std::optional<NcclPayload> read(const Schema& s, std::string_view payload);

  std::map<std::pair<int64_t, uint64_t>, Schema> schemas_;
};

}  // namespace bubblescope::traces::import
