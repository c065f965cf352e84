#pragma once
// What NCCL itself shows of a job's communication, for engine runs without the engine's own
// labels (`engine run --no-labels`): NCCL wraps each API call in an NVTX push/pop range of domain
// "NCCL", named by a registered string ("ncclSend") and carrying a payload laid out as NCCL's
// payload schemas lay it out (communicator hash first; bytes; peer). The stage runner opens one
// around each of its real transfers, so a profiler sees the run as it sees an unlabelled NCCL job.
// Disabled (labelled runs, or a build without NVTX), every call is a no-op.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace bubblescope::engine {

// A group of stages that talks as one NCCL communicator would.
struct Communicator {
  uint64_t hash = 0;  // the same in every member, as NCCL's commHash is
  int nranks = 0;
  int rank = 0;  // this stage's rank in it
};

// A hash that every member computes alike from the group's name and members, and that differs
// between groups (FNV-1a, 64 bits). Pure.
uint64_t communicatorHash(const std::string& group, const std::vector<int>& members);

class NcclRanges {
 public:
  explicit NcclRanges(bool enabled);

  // One open API range; closes at destruction. A receive learns its size only when the message
  // is there: setBytes() before the close hands the full payload over at the pop.
  class Call {
   public:
    Call(Call&& other) noexcept;
    Call(const Call&) = delete;
    Call& operator=(const Call&) = delete;
    Call& operator=(Call&&) = delete;
    ~Call();
    void setBytes(uint64_t bytes);

   private:
    friend class NcclRanges;
    Call(const NcclRanges* owner, int api, const void* payload, size_t size);
    const NcclRanges* owner_;
    int api_;
    // The payload as NCCL lays it out, kept alive until the pop (a tool may read it then).
    alignas(8) unsigned char payload_[24] = {};
    size_t size_ = 0;
    bool popWithPayload_ = false;
  };

  Call commInitRank(const Communicator& comm) const;
  Call send(const Communicator& comm, uint64_t bytes, int peer) const;
  Call recv(const Communicator& comm, uint64_t bytes, int peer) const;
  Call allReduce(const Communicator& comm, uint64_t bytes) const;

  bool enabled() const { return enabled_; }

 private:
  bool enabled_;
};

}  // namespace bubblescope::engine
