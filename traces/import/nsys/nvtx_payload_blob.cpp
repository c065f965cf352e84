#include "traces/import/nsys/nvtx_payload_blob.h"

#include <charconv>
#include <cstring>

namespace bubblescope::traces::import {
namespace {

// Where the value of `"<key>":` starts in an NVTX payload's JSON rendering, or npos.
size_t payloadValue(std::string_view json, std::string_view key) {
  const size_t k = json.find(key);
  if (k == std::string_view::npos) return k;
  size_t p = json.find(':', k + key.size());
  if (p == std::string_view::npos) return p;
  ++p;
  while (p < json.size() && (json[p] == ' ' || json[p] == '"')) ++p;
  return p;
}

// A signed number in the payload, or -1.
int64_t payloadNumber(std::string_view json, std::string_view key) {
  const size_t p = payloadValue(json, key);
  int64_t v = -1;
  if (p != std::string_view::npos) std::from_chars(json.data() + p, json.data() + json.size(), v);
  return v;
}

// An unsigned 64-bit number (a communicator hash uses all 64 bits), or 0.
uint64_t payloadUnsigned(std::string_view json, std::string_view key) {
  const size_t p = payloadValue(json, key);
  uint64_t v = 0;
  if (p != std::string_view::npos) std::from_chars(json.data() + p, json.data() + json.size(), v);
  return v;
}

// Bytes of each predefined entry type (nvToolsExtPayload.h's NVTX_PAYLOAD_ENTRY_TYPE_*, on
// LP64) up to TID_UINT64; 0 for one we cannot size (invalid, strings, unused ids). Ids past the
// table are registered enums or nested schemas, which we cannot size either.
constexpr uint8_t kTypeSize[] = {
    0, 1, 1, 2, 2, 4, 4, 8, 8, 8, 8,     // 0-10: invalid, char ... unsigned long long
    1, 1, 2, 2, 4, 4, 8, 8,              // 11-18: int8 ... uint64
    4, 8, 16, 8, 8, 4, 1, 2, 4,          // 19-27: float, double, long double, size, address,
                                         //        wchar, char8, char16, char32
    0, 0, 0, 0, 1, 16, 16,               // 28-34: -, byte, int128, uint128
    0, 0, 0, 0, 0, 0, 0,                 // 35-41
    2, 4, 8, 16, 0, 0, 0, 0, 2, 0, 4,    // 42-52: float16 ... float128, bf16, tf32
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  // 53-64
    0, 0, 0, 4, 4, 8, 4, 8, 4, 8};       // 65-74: category, color, scope id, pid, tid
static_assert(sizeof kTypeSize == 75);

size_t typeSize(uint64_t type) {
  return type < sizeof kTypeSize ? kTypeSize[type] : 0;
}

// Whether an entry type is an integer we read, and whether it is signed.
bool isInteger(uint64_t type) {
  return (type >= 1 && type <= 18) || type == 22 || type == 23 || (type >= 71 && type <= 74);
}
bool isSigned(uint64_t type) {
  return type <= 17 && type % 2 == 1;  // char, short, int, long, long long, int8 ... int64
}

uint64_t littleEndian(const char* p, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= uint64_t{static_cast<uint8_t>(p[i])} << (8 * i);
  return v;
}

}  // namespace

NcclPayload ncclPayloadFromJson(std::string_view json, const PayloadNeeds& needs) {
  NcclPayload p;
  if (json.empty()) return p;
  p.comm = payloadUnsigned(json, "communicator");
  p.bytes = payloadNumber(json, "Message size");
  p.peer = payloadNumber(json, "Peer rank");
  if (needs.rank) {
    p.rank = payloadNumber(json, "\"Rank\"");
    p.ranks = payloadNumber(json, "No. of ranks");
  }
  return p;
}

void PayloadSchemas::addSchema(int64_t domain, uint64_t id, uint64_t payloadSize) {
  Schema& s = schemas_[{domain, id}];
  if (s.payloadSize == 0) s.payloadSize = payloadSize;
}

void PayloadSchemas::addEntry(int64_t domain, uint64_t id, int64_t index,
                              const PayloadEntryRow& row) {
  Schema& s = schemas_[{domain, id}];
  auto at = s.rows.begin();
  while (at != s.rows.end() && at->first < index) ++at;
  if (at != s.rows.end() && at->first == index) return;
  s.rows.insert(at, {index, row});
  resolve(s);
}

// Each field NCCL's payloads hold, by the name NCCL gives its entry: where it sits. An entry with
// no offset follows the one before it at its own alignment; past an entry we cannot size, such
// entries cannot be placed.
void PayloadSchemas::resolve(Schema& s) {
  static constexpr std::pair<const char*, int> kNames[] = {{"NCCL communicator ID", kComm},
                                                           {"Message size [bytes]", kBytes},
                                                           {"Peer rank", kPeer},
                                                           {"Rank", kRank},
                                                           {"No. of ranks", kRanks}};
  for (Field& f : s.fields) f = Field{};
  size_t next = 0;  // where the entry before ended
  bool placed = true;
  int64_t expected = 0;
  for (const auto& [index, row] : s.rows) {
    // A missing row leaves the layout after it unknown.
    if (index != expected++) placed = false;
    const size_t size = row.flags == 0 ? typeSize(row.type) : 0;
    size_t at = 0;
    if (row.offset >= 0) {
      at = static_cast<size_t>(row.offset);
    } else if (placed && size > 0) {
      at = (next + size - 1) / size * size;
    } else {
      placed = false;
      continue;
    }
    placed = placed && size > 0;
    next = at + size;
    if (size == 0 || !isInteger(row.type)) continue;
    for (const auto& [name, field] : kNames) {
      if (row.name == name) s.fields[field] = {at, static_cast<uint8_t>(size), isSigned(row.type)};
    }
  }
}

std::optional<NcclPayload> PayloadSchemas::read(const Schema& s, std::string_view payload) {
  if (payload.size() < s.payloadSize) return std::nullopt;
  int64_t v[kFields];
  for (int i = 0; i < kFields; ++i) {
    const Field& f = s.fields[i];
    v[i] = -1;
    if (f.size == 0) continue;
    if (f.offset > payload.size() || payload.size() - f.offset < f.size) return std::nullopt;
    uint64_t raw = littleEndian(payload.data() + f.offset, f.size);
    if (f.isSigned && f.size < 8 && (raw >> (8 * f.size - 1)) != 0) {
      raw |= ~uint64_t{0} << (8 * f.size);  // sign-extend
    }
    int64_t value;
    std::memcpy(&value, &raw, sizeof value);
    v[i] = value;
  }
  NcclPayload p;
  p.comm = s.fields[kComm].size ? static_cast<uint64_t>(v[kComm]) : 0;
  p.bytes = v[kBytes];
  p.peer = v[kPeer];
  p.rank = v[kRank];
  p.ranks = v[kRanks];
  return p;
}

std::optional<NcclPayload> PayloadSchemas::decode(int64_t domain, std::string_view blob,
                                                  const PayloadNeeds& needs) const {
  // nvtxPayloadData_t: the schema id, the size, the bytes.
  if (blob.size() >= 16) {
    const uint64_t id = littleEndian(blob.data(), 8);
    if (auto it = schemas_.find({domain, id}); it != schemas_.end()) {
      const uint64_t size = littleEndian(blob.data() + 8, 8);
      if (size > blob.size() - 16) return std::nullopt;
      return read(it->second, blob.substr(16, size));
    }
  }
  // The payload alone: the domain's schemas of its size that hold what the call needs.
  auto holds = [&](const Schema& s) {
    return s.fields[kComm].size > 0 && (!needs.bytes || s.fields[kBytes].size > 0) &&
           (!needs.peer || s.fields[kPeer].size > 0) &&
           (!needs.rank || (s.fields[kRank].size > 0 && s.fields[kRanks].size > 0));
  };
  std::optional<NcclPayload> found;
  for (auto it = schemas_.lower_bound({domain, 0});
       it != schemas_.end() && it->first.first == domain; ++it) {
    if (it->second.payloadSize != blob.size() || !holds(it->second)) continue;
    auto p = read(it->second, blob);
    if (!p) continue;
    if (!needs.bytes) p->bytes = -1;
    if (!needs.peer) p->peer = -1;
    if (!needs.rank) p->rank = p->ranks = -1;
    if (found && !(*found == *p)) return std::nullopt;  // they read it differently
    found = p;
  }
  return found;
}

}  // namespace bubblescope::traces::import
