#include "reference_engine/executor/nccl_ranges.h"

#include <cstddef>
#include <cstring>

#if BUBBLESCOPE_HAVE_NVTX
#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtPayload.h>
#endif

namespace bubblescope::engine {
namespace {

enum Api { kCommInitRank, kSend, kRecv, kAllReduce, kApis };

// The API function names NCCL gives its ranges (its __func__).
constexpr const char* kApiNames[kApis] = {"ncclCommInitRank", "ncclSend", "ncclRecv",
                                          "ncclAllReduce"};

// Payload layouts, as a tool reads them (agent/nccl/nccl_calls.cpp decodes the same): every one
// starts with the communicator's hash.
struct InitPayload {
  uint64_t comm;
  int32_t nranks, myrank, cudaDev;
};
struct SendRecvPayload {
  uint64_t comm;
  uint64_t bytes;  // size_t in NCCL: 64 bits on every platform the engine runs on
  int32_t peer;
};
struct CollectivePayload {
  uint64_t comm;
  uint64_t bytes;
  int32_t redOp;
};
static_assert(sizeof(InitPayload) <= 24 && sizeof(SendRecvPayload) <= 24 &&
              sizeof(CollectivePayload) <= 24);
constexpr int32_t kSum = 0;        // ncclSum
constexpr int32_t kNoDevice = -1;  // the engine's stages run on the host

#if BUBBLESCOPE_HAVE_NVTX
nvtxDomainHandle_t domain() {
  static const nvtxDomainHandle_t d = nvtxDomainCreateA("NCCL");
  return d;
}

// NCCL registers each name once and names its ranges by the handle.
nvtxStringHandle_t nameOf(int api) {
  static const auto names = [] {
    struct Names {
      nvtxStringHandle_t h[kApis];
    } n{};
    for (int a = 0; a < kApis; ++a) n.h[a] = nvtxDomainRegisterStringA(domain(), kApiNames[a]);
    return n;
  }();
  return names.h[api];
}

// Static schema ids are the application's own (>= NVTX_PAYLOAD_SCHEMA_ID_STATIC_START); a tool
// that knows NCCL reads the layout off the range's name, as the agent does.
uint64_t schemaOf(int api) {
  return NVTX_PAYLOAD_SCHEMA_ID_STATIC_START + static_cast<uint64_t>(api);
}
#endif

}  // namespace

uint64_t communicatorHash(const std::string& group, const std::vector<int>& members) {
  uint64_t h = 14695981039346656037ull;
  auto mix = [&h](unsigned char byte) {
    h ^= byte;
    h *= 1099511628211ull;
  };
  for (char c : group) mix(static_cast<unsigned char>(c));
  for (int m : members) {
    mix(',');
    for (char c : std::to_string(m)) mix(static_cast<unsigned char>(c));
  }
  return h;
}

NcclRanges::NcclRanges(bool enabled) : enabled_(enabled && BUBBLESCOPE_HAVE_NVTX != 0) {}

NcclRanges::Call::Call(const NcclRanges* owner, int api, const void* payload, size_t size)
    : owner_(owner != nullptr && owner->enabled() ? owner : nullptr), api_(api), size_(size) {
  if (owner_ == nullptr) return;
  std::memcpy(payload_, payload, size);
#if BUBBLESCOPE_HAVE_NVTX
  nvtxEventAttributes_t a = {};
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  a.message.registered = nameOf(api);
  nvtxPayloadData_t data[1];
  NVTX_PAYLOAD_EVTATTR_SET_DATA(a, &data[0], schemaOf(api), payload_, size_)
  nvtxDomainRangePushEx(domain(), &a);
#endif
}

NcclRanges::Call::Call(Call&& other) noexcept
    : owner_(other.owner_),
      api_(other.api_),
      size_(other.size_),
      popWithPayload_(other.popWithPayload_) {
  std::memcpy(payload_, other.payload_, sizeof payload_);
  other.owner_ = nullptr;
}

NcclRanges::Call::~Call() {
  if (owner_ == nullptr) return;
#if BUBBLESCOPE_HAVE_NVTX
  if (popWithPayload_) {
    const nvtxPayloadData_t data[1] = {{schemaOf(api_), size_, payload_}};
    nvtxRangePopPayload(domain(), data, 1);
  } else {
    nvtxDomainRangePop(domain());
  }
#endif
}

void NcclRanges::Call::setBytes(uint64_t bytes) {
  if (owner_ == nullptr || (api_ != kSend && api_ != kRecv)) return;
  std::memcpy(payload_ + offsetof(SendRecvPayload, bytes), &bytes, sizeof bytes);
  popWithPayload_ = true;
}

NcclRanges::Call NcclRanges::commInitRank(const Communicator& comm) const {
  const InitPayload p = {comm.hash, comm.nranks, comm.rank, kNoDevice};
  return Call(this, kCommInitRank, &p, sizeof p);
}

NcclRanges::Call NcclRanges::send(const Communicator& comm, uint64_t bytes, int peer) const {
  const SendRecvPayload p = {comm.hash, bytes, peer};
  return Call(this, kSend, &p, sizeof p);
}

NcclRanges::Call NcclRanges::recv(const Communicator& comm, uint64_t bytes, int peer) const {
  const SendRecvPayload p = {comm.hash, bytes, peer};
  return Call(this, kRecv, &p, sizeof p);
}

NcclRanges::Call NcclRanges::allReduce(const Communicator& comm, uint64_t bytes) const {
  const CollectivePayload p = {comm.hash, bytes, kSum};
  return Call(this, kAllReduce, &p, sizeof p);
}

}  // namespace bubblescope::engine
