#include "agent/nccl/comm_hash.h"

#include <cstring>

namespace bubblescope::agent {

void NcclHasher::eat(const void* bytes, size_t size) {
  const auto* p = static_cast<const char*>(bytes);
  acc[0] ^= size;
  while (size != 0) {
    acc[0] += acc[1];
    acc[1] ^= acc[0];
    acc[0] ^= acc[0] >> 31;
    acc[0] *= 0x9de62bbc8cef3ce3ull;
    acc[1] ^= acc[1] >> 32;
    acc[1] *= 0x485cd6311b599e79ull;
    const size_t chunk = size < sizeof(uint64_t) ? size : sizeof(uint64_t);
    uint64_t x = 0;
    std::memcpy(&x, p, chunk);
    p += chunk;
    size -= chunk;
    acc[0] += x;
  }
}

uint64_t NcclHasher::digest() const {
  uint64_t h = acc[0];
  h ^= h >> 31;
  h *= 0xbac3bd562846de6bull;
  h += acc[1];
  h ^= h >> 32;
  h *= 0x995a187a14e7b445ull;
  return h;
}

uint64_t commHashOfUniqueId(const void* uniqueId, size_t size) {
  NcclHasher h;
  h.eat(uniqueId, size);
  return h.digest();
}

uint64_t commHashOfSplit(uint64_t parentHash, int splitCount, int color) {
  NcclHasher h;
  h.eat(&parentHash, sizeof parentHash);
  h.eat(&splitCount, sizeof splitCount);
  h.eat(&color, sizeof color);
  return h.digest();
}

}  // namespace bubblescope::agent
